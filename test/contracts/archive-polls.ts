/**
 * Polls written into a store under contract the way the poller writes them (app/poller.ts): the
 * plan from the core's diff against what the store holds, backfill until the archive is seeded,
 * the deliveries from the core's fan-out over the store's active subscriptions. Only the port and
 * the core: these run inside workerd too.
 */
import { planPoll } from '../../src/core/diff.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import { htmlToText } from '../../src/core/html-text.ts';
import type { ApplyPollInput, PollRun, RejectedPayload, Store, StoredIncident, StoredSubscription } from '../../src/core/ports.ts';
import type { Channel, SubscriptionFilters } from '../../src/core/subscription.ts';
import { one, type RawIncident } from '../fixtures/vendor-builders.ts';

/** How far back a poll refreshes last_seen_at (the poller's LAST_SEEN_PRECISION_MS). */
export const LAST_SEEN_PRECISION_MS = 10 * 60_000;

let runCounter = 0;

export function pollRun(startedAt: number, outcome: PollRun['outcome'] = 'ok', overrides: Partial<PollRun> = {}): PollRun {
  return { id: `run-${++runCounter}`, startedAt, finishedAt: startedAt + 5, outcome, sources: [], changes: {}, ...overrides };
}

export type PollOptions = {
  /** The poll read the history: a first poll that did marks the archive seeded. Default true. */
  historyRead?: boolean;
  rejected?: RejectedPayload[];
  /** Default: the poller's, now minus LAST_SEEN_PRECISION_MS. */
  seenBefore?: number;
};

/** Plans a poll of `raws` at `now` against `store` as the poller does, without writing it. */
export async function planPollOf(store: Store, raws: readonly RawIncident[], now: number, options: PollOptions = {}): Promise<ApplyPollInput> {
  const observed = raws.map(one);
  const ids = observed.map((i) => i.id);
  const seeded = await store.isSeeded();
  const plan = planPoll({ observed, archived: await store.loadIncidents(ids), now, backfill: !seeded });
  const deliveries = planDeliveries(plan.events, await store.activeSubscriptions());
  const changes: PollRun['changes'] = {};
  for (const event of plan.events) changes[event.type] = (changes[event.type] ?? 0) + 1;
  return {
    run: pollRun(now, 'ok', { changes }),
    plan: { writes: plan.writes, events: plan.events },
    deliveries,
    seenIds: ids,
    seenBefore: options.seenBefore ?? now - LAST_SEEN_PRECISION_MS,
    rejected: options.rejected ?? [],
    markSeeded: !seeded && (options.historyRead ?? true),
  };
}

/** Plans and applies one poll; returns what was applied and the generation the store reported. */
export async function applyPollOf(store: Store, raws: readonly RawIncident[], now: number, options: PollOptions = {}) {
  const input = await planPollOf(store, raws, now, options);
  const generation = await store.applyPoll(input);
  return { input, generation };
}

/** An active subscription, as an admin would add it, hearing of what its filters let through. */
export async function subscribe(
  store: Store,
  id: string,
  now: number,
  filters: SubscriptionFilters = {},
  channel: Channel = 'webhook',
): Promise<StoredSubscription> {
  const subscription: StoredSubscription = {
    id,
    channel,
    target: channel === 'email' ? `${id}@example.test` : `https://hooks.example.test/${id}`,
    filters,
    timeZone: 'UTC',
    status: 'active',
    origin: 'admin',
    pausedReason: null,
    secretSealed: channel === 'webhook' ? 'sealed' : null,
    previousSecretSealed: null,
    previousSecretUntil: null,
    failingSince: null,
    lastSuccessAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await store.createSubscription(subscription);
  return subscription;
}

export function rejectedPayload(body: string, hashSeed: string, source: RejectedPayload['source'] = 'v2/current'): RejectedPayload {
  return { source, url: `http://vendor.test/api/${source}`, body, error: 'invalid JSON', sha256: hashSeed.padEnd(64, '0') };
}

/** An incident as the store gives it back: the feed's incident, each note with its plain text, and the archive's bookkeeping. */
export function archivedAs(raw: RawIncident, bookkeeping: Pick<StoredIncident, 'revision' | 'resolvedAt' | 'firstSeenAt' | 'lastSeenAt'>): StoredIncident {
  const incident = one(raw);
  return { ...incident, notes: incident.notes.map((note) => ({ ...note, text: htmlToText(note.body) })), ...bookkeeping };
}
