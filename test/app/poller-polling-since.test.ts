/**
 * A feed never read is blind from when polling began. On Workers every cron invocation makes a
 * new poller, so "began" must be a time kept with the archive, not each poller's creation: with
 * a poller per minute against an unreachable feed, monitor.blind is recorded once the first
 * minute is five minutes past, and only then (the Workers runtime's pollingSinceKeptIn).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createPoller, type PollerDeps } from '../../src/app/poller.ts';
import { STALE_AFTER_MS } from '../../src/core/knowledge.ts';
import type { Clock } from '../../src/core/ports.ts';
import { pollingSinceKeptIn } from '../../src/entry/services.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const MINUTE_MS = 60_000;

describe('blind from when polling began, with a poller per invocation', () => {
  let archive: TempArchive;
  let closed: Server;
  let deadUrl: string;
  let now = Date.UTC(2026, 10, 23, 10, 0, 0);
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    archive = openTempArchive();
    // A port that refuses connections: the feed cannot be read at all.
    closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });
  afterEach(() => archive.remove());

  /** One cron invocation: a new poller, one poll. */
  const invocation = (extra: Partial<PollerDeps>) =>
    createPoller({
      store: archive.store,
      feed: createFetchFeedClient({ baseUrl: deadUrl, timeoutMs: 500, maxBytes: 1_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: `cron-${randomUUID()}`,
      newId: randomUUID,
      ...extra,
    }).pollOnce();

  const blindEvents = async () => (await archive.store.listEvents({ types: ['monitor.blind'] }, 0, 10)).length;

  async function everyMinuteFor(minutes: number, extra: () => Partial<PollerDeps>): Promise<number[]> {
    const seen: number[] = [];
    for (let minute = 0; minute <= minutes; minute++) {
      await invocation(extra());
      seen.push(await blindEvents());
      now += MINUTE_MS;
    }
    return seen;
  }

  it('announces blindness after the limit when the start time lives with the archive', async () => {
    const seen = await everyMinuteFor(STALE_AFTER_MS / MINUTE_MS + 1, () => ({ pollingSince: pollingSinceKeptIn(archive.store, clock) }));
    // Minutes 0-4 are within the limit; at minute 5 the feed has been dark for the limit.
    expect(seen).toEqual([0, 0, 0, 0, 0, 1, 1]);
  });

  it('never would with each poller counting from its own creation (what the option fixes)', async () => {
    const seen = await everyMinuteFor(STALE_AFTER_MS / MINUTE_MS + 1, () => ({}));
    expect(seen.at(-1)).toBe(0);
  });
});
