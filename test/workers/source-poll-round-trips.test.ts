/**
 * A source's poll inside workerd, its subrequests counted one by one: each D1 call and each read of
 * the page counts against the invocation's budget (50 on the Free plan). The page is simulated on
 * the Node side and reached over loopback HTTP.
 */
import { env } from 'cloudflare:test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createFetchPageReader } from '../../src/adapters/fetch-page-reader.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createSourcePoller } from '../../src/app/source-poller.ts';
import type { Clock, Logger } from '../../src/core/ports.ts';
import { sourceLeaseName } from '../../src/core/statuspage/mapping.ts';
import { countingD1 } from './harness/counting-d1.ts';
import { startTestStatuspage, type TestStatuspage } from './harness/statuspage-pages.ts';
import { emptyD1 } from './d1-reset.ts';
import type {} from './provided-context.ts';

const DB = (env as unknown as { DB: D1DatabaseLike }).DB;
const clock: Clock = { now: () => Date.now() };
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const SOURCE_ID = 'src_roundtrips1';

/** A source poller over `db`, made for one invocation as the sources queue's consumer makes it. */
function pollerOver(db: D1DatabaseLike, instanceId: string) {
  return createSourcePoller({
    store: createSqliteStore(d1Connection(db)),
    reader: createFetchPageReader({ timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock }),
    clock,
    logger: silent,
    instanceId,
    newId: () => crypto.randomUUID(),
  });
}

const leaseNames = async () => ((await DB.prepare('SELECT name FROM leases ORDER BY name').raw()) as [string][]).map(([name]) => name);

describe("a source's poll on D1", () => {
  let page: TestStatuspage;
  beforeAll(async () => {
    page = await startTestStatuspage({ name: 'Round trips' });
  });
  afterAll(async () => {
    await page.close();
  });
  beforeEach(async () => {
    await emptyD1(DB);
    const store = createSqliteStore(d1Connection(DB));
    expect(await store.addSource({ id: SOURCE_ID, kind: 'statuspage', name: 'Round trips', url: page.url, createdAt: Date.now() }, 100)).toEqual({
      added: true,
    });
  });

  /** One poll in a new invocation: its result, and its subrequests (D1 calls and the page's reads). */
  async function countedPoll(instanceId: string, sourceId = SOURCE_ID) {
    const d1 = countingD1(DB);
    const readsBefore = (await page.requests()).length;
    const result = await pollerOver(d1.db, instanceId).pollSource(sourceId);
    const fetches = (await page.requests()).length - readsBefore;
    return { result, fetches, d1Calls: d1.calls() };
  }

  it('costs a quiet minute three subrequests: the lease with the row, the 304, the state with the release', async () => {
    const first = await countedPoll('first');
    expect(first.result).toMatchObject({ status: 'ok', unchanged: false });
    // Its first read: the three lists, its history backfilled.
    expect(first.fetches + first.d1Calls).toBeLessThanOrEqual(12);

    const quiet = await countedPoll('quiet');
    expect(quiet.result).toMatchObject({ status: 'ok', unchanged: true });
    expect([quiet.fetches, quiet.d1Calls]).toEqual([1, 2]);
    // Given back with the state: the next invocation polls.
    expect(await leaseNames()).toEqual([]);
    expect((await countedPoll('next')).result).toMatchObject({ status: 'ok', unchanged: true });
  });

  it('asks D1 once when another poll holds the lease, and once for a source that is not there, leaving no lease', async () => {
    const other = createSqliteStore(d1Connection(DB));
    expect(await other.tryAcquireLease(sourceLeaseName(SOURCE_ID), 'other-invocation', Date.now(), 60_000)).toBe(true);
    const held = await countedPoll('second');
    expect(held.result).toEqual({ sourceId: SOURCE_ID, status: 'skipped', reason: 'another poll is running' });
    expect([held.fetches, held.d1Calls]).toEqual([0, 1]);

    const gone = await countedPoll('any', 'src_notthere0001');
    expect(gone.result).toEqual({ sourceId: 'src_notthere0001', status: 'skipped', reason: 'no such source' });
    expect([gone.fetches, gone.d1Calls]).toEqual([0, 1]);
    expect(await leaseNames()).toEqual([sourceLeaseName(SOURCE_ID)]);
  });
});
