/**
 * The log while the feed cannot be read, as an operator reads it at the default level (info):
 * one error with a hint when polls start failing, a reminder every 15 minutes, one line when the
 * feed is read again; not a warning and an error every minute with the same message.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createPoller } from '../../src/app/poller.ts';
import type { Clock } from '../../src/core/ports.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const MINUTE_MS = 60_000;
type Line = { level: string; msg: string; hint?: string; failedPolls?: number };

describe('the log while the feed cannot be read', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let now = Date.UTC(2026, 10, 23, 10, 0, 0);
  const clock: Clock = { now: () => now };
  const lines: Line[] = [];

  beforeEach(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
  });
  afterEach(async () => {
    archive.remove();
    await vendor.close();
  });

  it('says it once with a hint, reminds every 15 minutes, and says when it reads again', async () => {
    await vendor.setIncidents([rawIncident({ id: 1 })]);
    const poller = createPoller({
      store: archive.store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 1_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'info', format: 'json', write: (line) => lines.push(JSON.parse(line) as Line) }),
      instanceId: 'a',
      newId: randomUUID,
    });
    expect((await poller.pollOnce()).status).toBe('ok');
    lines.length = 0;

    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    for (let minute = 1; minute <= 40; minute++) {
      now += MINUTE_MS;
      expect((await poller.pollOnce()).status).toBe('failed');
    }
    const feedLines = () => lines.filter((l) => l.msg !== 'monitor blind: the feed has not been read for the staleness limit');
    // Forty failed polls: the first said with its hint, then reminders at 15 and 30 minutes.
    expect(feedLines().map((l) => [l.level, l.msg, l.failedPolls])).toEqual([
      ['error', 'poll failed', 1],
      ['warn', 'polls still failing', 16],
      ['warn', 'polls still failing', 31],
    ]);
    expect(feedLines()[0]!.hint).toMatch(/network.*STATUS_URL/);

    await vendor.clearFaults();
    now += MINUTE_MS;
    expect((await poller.pollOnce()).status).not.toBe('failed');
    expect(feedLines().at(-1)).toMatchObject({ level: 'info', msg: 'polls read the feed again', failedPolls: 40 });
  });
});
