/**
 * Keeps a SCIM client under the spec's per-endpoint rate limits before the vendor has to say 429:
 * the same token buckets the vendor describes (refill at the per-minute limit, hold at most the
 * burst), decided here as pure functions over the caller's buckets and `now`.
 */

export type ScimRateScope = 'reads' | 'users.get' | 'groups.get';
export type ScimRateRule = { perMinute: number; burst: number };

/**
 * The rows of "Limits / SCIM rate limits" a reading client touches: every GET draws from the
 * org-wide reads bucket, and a GET of one user or one group from its own row too. The client
 * never writes, so the write rows never apply.
 */
const SCIM_READ_LIMITS: Readonly<Record<ScimRateScope, ScimRateRule>> = {
  reads: { perMinute: 1000, burst: 1000 },
  'users.get': { perMinute: 300, burst: 300 },
  'groups.get': { perMinute: 300, burst: 300 },
};

export type PacerBuckets = Partial<Record<ScimRateScope, { tokens: number; atMs: number }>>;

/** The rate scopes of a GET by its path below /scim/<version>. */
export function scopesOf(path: string): ScimRateScope[] {
  if (/^\/Users\/[^/?]+/.test(path)) return ['reads', 'users.get'];
  if (/^\/Groups\/[^/?]+/.test(path)) return ['reads', 'groups.get'];
  return ['reads'];
}

function refilled(buckets: PacerBuckets, scope: ScimRateScope, nowMs: number, rules: Readonly<Record<ScimRateScope, ScimRateRule>>) {
  const rule = rules[scope];
  const bucket = buckets[scope] ?? { tokens: rule.burst, atMs: nowMs };
  const elapsedMs = Math.max(0, nowMs - bucket.atMs);
  return { tokens: Math.min(rule.burst, bucket.tokens + (elapsedMs * rule.perMinute) / 60_000), atMs: Math.max(nowMs, bucket.atMs) };
}

type PaceDecision = { kind: 'go'; buckets: PacerBuckets } | { kind: 'wait'; waitMs: number };

/**
 * Whether a request of these scopes may go at `nowMs`: if so, the buckets with one token taken from
 * each; if not, how long until every one of them holds a whole token again.
 */
export function pace(
  buckets: PacerBuckets,
  scopes: readonly ScimRateScope[],
  nowMs: number,
  rules: Readonly<Record<ScimRateScope, ScimRateRule>> = SCIM_READ_LIMITS,
): PaceDecision {
  let waitMs = 0;
  const next: PacerBuckets = { ...buckets };
  for (const scope of scopes) {
    const bucket = refilled(buckets, scope, nowMs, rules);
    if (bucket.tokens < 1) waitMs = Math.max(waitMs, Math.ceil(((1 - bucket.tokens) * 60_000) / rules[scope].perMinute));
    next[scope] = { tokens: bucket.tokens - 1, atMs: bucket.atMs };
  }
  return waitMs > 0 ? { kind: 'wait', waitMs } : { kind: 'go', buckets: next };
}
