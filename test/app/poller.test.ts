/** The poll use case on a real archive and a real feed over HTTP, with two pollers sharing one archive. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createPoller, LAST_SEEN_PRECISION_MS } from '../../src/app/poller.ts';
import type { Clock } from '../../src/core/ports.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

describe('poller', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let now = Date.UTC(2026, 10, 22, 10, 0, 0);
  const clock: Clock = { now: () => now };

  const newPoller = (name: string) =>
    createPoller({
      store: archive.store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: name,
      newId: randomUUID,
    });

  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
  });
  afterAll(async () => {
    archive.remove();
    await vendor.close();
  });

  it('notices what another process wrote, even when the feed goes back to what it cached', async () => {
    const a = newPoller('a');
    const b = newPoller('b');
    const original = rawIncident({ id: 1 });
    await vendor.setIncidents([original]);
    expect((await a.pollOnce()).status).toBe('ok'); // a now caches revision 1

    await vendor.setIncidents([{ ...original, title: 'Edited' }]);
    const edit = await b.pollOnce();
    expect(edit.status !== 'skipped' && edit.events.map((e) => e.id)).toEqual(['1.r2.updated']);

    await vendor.setIncidents([original]); // the vendor reverts the edit
    now += 1000;
    const revert = await a.pollOnce();
    expect(revert.status !== 'skipped' && revert.events.map((e) => [e.id, e.data])).toEqual([
      ['1.r3.updated', expect.objectContaining({ changes: { title: { from: 'Edited', to: original.title } } })],
    ]);
  });

  it('refreshes last_seen_at only when it is older than its precision', async () => {
    const poller = newPoller('c');
    const seen = async () => (await archive.store.getIncident('1'))!.lastSeenAt;
    await vendor.setIncidents([rawIncident({ id: 1 }), rawIncident({ id: 2, title: 'Second' })]);
    now += 1000;
    await poller.pollOnce();
    const first = await seen();
    now += 60_000;
    await vendor.setIncidents([rawIncident({ id: 1 }), rawIncident({ id: 2, title: 'Second, edited' })]);
    await poller.pollOnce();
    expect(await seen()).toBe(first); // 1 was not rewritten for 2's change
    now += LAST_SEEN_PRECISION_MS;
    await poller.pollOnce(); // unchanged feed, but due for a full diff
    expect(await seen()).toBe(now);
  });
});
