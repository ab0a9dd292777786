/**
 * What a well-behaved client never does with its tokens, counted per installation so a test can
 * assert zero: reusing a spent refresh token (inside or after the grace period), using a revoked
 * refresh token, and calling a method with an expired or revoked access token.
 */

export const MISUSE_KINDS = ['refreshReusedInGrace', 'refreshReusedAfterGrace', 'revokedRefreshUsed', 'expiredTokenCalls', 'revokedTokenCalls'] as const;
export type MisuseKind = (typeof MISUSE_KINDS)[number];

export type MisuseCounters = Record<MisuseKind, number>;

export type MisuseEvent = { atMs: number; kind: MisuseKind; method: string };

/** The newest events kept per installation; the counters keep counting past it. */
export const MISUSE_EVENTS_MAX = 100;

export type MisuseRecord = { counters: MisuseCounters; events: MisuseEvent[] };

export const emptyMisuse = (): MisuseRecord => ({
  counters: { refreshReusedInGrace: 0, refreshReusedAfterGrace: 0, revokedRefreshUsed: 0, expiredTokenCalls: 0, revokedTokenCalls: 0 },
  events: [],
});

export function recordMisuse(record: MisuseRecord, event: MisuseEvent): void {
  record.counters[event.kind] += 1;
  record.events.push(event);
  if (record.events.length > MISUSE_EVENTS_MAX) record.events.splice(0, record.events.length - MISUSE_EVENTS_MAX);
}

export const totalMisuse = (counters: MisuseCounters): number => MISUSE_KINDS.reduce((sum, kind) => sum + counters[kind], 0);
