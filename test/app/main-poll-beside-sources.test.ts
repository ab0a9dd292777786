/**
 * The main feed's poll beside sources: a source's poll writes the shared archive, yet the main
 * poll's "nothing changed" short-cut still holds the minute after, since nothing of the main feed
 * moved. A real archive file, the simulated vendor and a simulated page over loopback HTTP.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createFetchPageReader } from '../../src/adapters/fetch-page-reader.ts';
import type { Clock, Store } from '../../src/core/ports.ts';
import { createPoller, type PollResult } from '../../src/app/poller.ts';
import { createSourcePoller } from '../../src/app/source-poller.ts';

import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

/** The real store, counting the calls each poll makes of it: what a poll costs the archive. */
function countingStore(store: Store): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counted, calls };
}

describe('the main poll beside sources', () => {
  let archive: TempArchive;
  let vendor: TestVendor;
  let page: RunningSimulatedStatuspage;
  let now = Date.UTC(2026, 10, 27, 9, 0, 0);
  const clock: Clock = { now: () => now };
  const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });

  beforeAll(async () => {
    archive = openTempArchive();
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded' })]);
    page = await startSimulatedStatuspage();
  });
  afterAll(async () => {
    await page?.close();
    await vendor?.close();
    archive?.remove();
  });

  it("keeps the main poll's short-cut the minute after a source's poll wrote the archive", async () => {
    const counted = countingStore(archive.store);
    const mainPoller = createPoller({
      store: counted.store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger,
      instanceId: 'main',
      newId: randomUUID,
    });
    const sourcePoller = createSourcePoller({
      store: archive.store,
      reader: createFetchPageReader({ timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger,
      instanceId: 'sources',
      newId: randomUUID,
    });
    const id = 'src_acme0000001';
    expect(await archive.store.addSource({ id, kind: 'statuspage', name: 'Acme Cloud', url: page.url, createdAt: now }, 100)).toEqual({ added: true });
    const minute = async (): Promise<{ result: PollResult; calls: string[] }> => {
      now += 60_000;
      counted.calls.length = 0;
      const result = await mainPoller.pollOnce();
      return { result, calls: [...counted.calls] };
    };
    const unchanged = (r: PollResult) => r.status !== 'skipped' && r.unchanged;

    await minute(); // the backfill
    const quiet = await minute();
    expect(unchanged(quiet.result)).toBe(true);

    // The page's first read backfills its history, then its story opens an incident.
    now += 1000;
    const first = await sourcePoller.pollSource(id);
    expect(first.status === 'ok' && first.events.length).toBeGreaterThan(0);
    const afterFirstRead = await minute();
    expect(unchanged(afterFirstRead.result)).toBe(true);
    expect(afterFirstRead.calls).toEqual(quiet.calls);

    page.page.advance();
    now += 1000;
    const opened = await sourcePoller.pollSource(id);
    expect(opened.status === 'ok' && opened.events.map((e) => e.type)).toEqual(['incident.created', 'component.status_changed']);
    const afterNews = await minute();
    expect(unchanged(afterNews.result)).toBe(true);
    expect(afterNews.calls).toEqual(quiet.calls);

    // The main feed's own news is still diffed at once.
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded' }), rawIncident({ id: 2, title: 'New' })]);
    const news = await minute();
    expect(news.result.status !== 'skipped' && news.result.events.map((e) => `${e.type} ${e.incidentId}`)).toEqual(['incident.created 2']);
  });
});
