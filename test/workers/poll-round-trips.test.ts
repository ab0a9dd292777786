/**
 * The poll's requests to D1 inside workerd. Each is a subrequest of the invocation (the free plan
 * allows 50) and a round trip that holds the cron: a poll takes its lease with its first reads
 * and gives it back with its last write.
 */
import { env } from 'cloudflare:test';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createPoller, type PollResult } from '../../src/app/poller.ts';
import type { Clock, Logger } from '../../src/core/ports.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { countingD1 } from './harness/counting-d1.ts';
import { emptyD1 } from './d1-reset.ts';
import type {} from './provided-context.ts';

const simUrl = inject('simUrl');
const DB = (env as unknown as { DB: D1DatabaseLike }).DB;
const clock: Clock = { now: () => Date.now() };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function publish(incidents: RawIncident[]): Promise<void> {
  const res = await fetch(`${simUrl}/_sim/incidents`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(incidents) });
  if (!res.ok) throw new Error(`publish: ${res.status}`);
}

/** A poller over `db`, made for one poll as each cron invocation makes it. */
function pollerOver(db: D1DatabaseLike, name: string, keepAlive?: (work: Promise<unknown>) => void) {
  return createPoller({
    ...(keepAlive ? { keepAlive } : {}),
    store: createSqliteStore(d1Connection(db)),
    feed: createFetchFeedClient({ baseUrl: simUrl, timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock }),
    clock,
    logger: silent,
    instanceId: name,
    newId: () => crypto.randomUUID(),
  });
}

const eventsOf = (result: PollResult) => (result.status === 'skipped' ? [] : result.events.map((e) => `${e.type} ${e.incidentId}`));

describe('a poll on D1', () => {
  beforeEach(async () => {
    await emptyD1(DB);
  });

  it('asks D1 twice when the feed is unchanged, and five times for one changed incident', async () => {
    const feed = [rawIncident({ id: 1, title: 'One' }), rawIncident({ id: 2, title: 'Two' })];
    await publish(feed);
    expect(eventsOf(await pollerOver(DB, 'backfill').pollOnce())).toHaveLength(2); // backfill

    // A new invocation, the same feed: the lease with the first reads, then the run with the release.
    const quiet = countingD1(DB);
    const unchanged = await pollerOver(quiet.db, 'quiet').pollOnce();
    expect(unchanged.status !== 'skipped' && unchanged.unchanged).toBe(true);
    expect(quiet.calls()).toBe(2);

    // One title edited, in a new invocation: the lease and first reads (with the revisions the last
    // diff kept, still the archive's); the edited incident's row and its notes (nothing cached
    // yet); the subscriptions' version with their list; the write with the release.
    await publish([feed[0]!, { ...feed[1]!, title: 'Two, edited' }]);
    const busy = countingD1(DB);
    expect(eventsOf(await pollerOver(busy.db, 'busy').pollOnce())).toEqual(['incident.updated 2']);
    expect(busy.calls()).toBe(5);

    // Given back: the next invocation polls.
    expect((await pollerOver(DB, 'next').pollOnce()).status).toBe('ok');
  });

  it("asks D1 for a quiet poll's record only once the poll has answered", async () => {
    // In workerd a D1 request made before the answer went out held the answer back behind it.
    await publish([rawIncident({ id: 1, title: 'One' })]);
    await pollerOver(DB, 'backfill').pollOnce();
    const kept: Promise<unknown>[] = [];
    const counted = countingD1(DB);
    const answered = await pollerOver(counted.db, 'cron', (work) => kept.push(work)).pollOnce();
    expect(answered.status !== 'skipped' && answered.unchanged).toBe(true);
    expect(counted.calls()).toBe(1); // the lease with the first reads, and nothing asked since
    await Promise.all(kept);
    expect(counted.calls()).toBe(2); // the run with the release, in the work kept alive
    expect(((await DB.prepare('SELECT count(*) FROM poll_runs').raw()) as [number][])[0]?.[0]).toBe(2);
  });

  it('answers a quiet poll before its run is written, and writes it, lease given back, in the work the cron keeps alive', async () => {
    await publish([rawIncident({ id: 1, title: 'One' })]);
    await pollerOver(DB, 'backfill').pollOnce();
    const count = async (sql: string) => ((await DB.prepare(sql).raw()) as [number][])[0]?.[0];
    const runs = () => count('SELECT count(*) FROM poll_runs');

    // D1 takes the lease with the first reads at once, and holds every later batch until told.
    let letThrough!: () => void;
    const gate = new Promise<void>((resolve) => (letThrough = resolve));
    let batches = 0;
    const held = new Proxy(DB as object, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (key !== 'batch') return (value as (...a: unknown[]) => unknown).bind(target);
        return async (list: unknown[]) => {
          if (++batches > 1) await gate;
          return (value as (l: unknown[]) => unknown).call(target, list);
        };
      },
    }) as D1DatabaseLike;
    const kept: Promise<unknown>[] = [];
    const poller = pollerOver(held, 'cron', (work) => kept.push(work));

    const answered = await Promise.race([poller.pollOnce(), new Promise<'waited for its record'>((r) => setTimeout(() => r('waited for its record'), 2000))]);
    expect(answered !== 'waited for its record' && answered.status !== 'skipped' && answered.unchanged).toBe(true);
    expect(kept).toHaveLength(1);
    expect(await runs()).toBe(1); // the backfill's alone, so far

    // This poller's next poll is a poll of its own, begun once the record and the release are in.
    const next = poller.pollOnce();
    letThrough();
    await Promise.all(kept);
    expect(await runs()).toBe(2);
    const again = await next;
    expect(again.status).toBe('ok');
    await Promise.all(kept);
    expect(await runs()).toBe(3);
    expect(await count("SELECT count(*) FROM leases WHERE name = 'poll'")).toBe(0);
  });
});
