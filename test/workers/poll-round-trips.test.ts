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
function pollerOver(db: D1DatabaseLike, name: string) {
  return createPoller({
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
});
