/**
 * Two pollers on two connections to one archive file plan the same change, and the one that
 * planned first writes second: its piece is refused whole on the moved revision, planned again,
 * and the archive holds the change once, with one delivery for it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createPoller, type PollResult } from '../../src/app/poller.ts';
import type { Clock, Store } from '../../src/core/ports.ts';
import { openSqliteArchive, type SqliteArchive } from '../../src/entry/open-sqlite.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

type LogLine = { level: string; msg: string };

describe('two pollers racing on one archive', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let second: SqliteArchive;
  const now = Date.UTC(2026, 10, 22, 10, 0, 0);
  const clock: Clock = { now: () => now };
  const logs: Record<string, LogLine[]> = { a: [], b: [] };

  const newPoller = (name: 'a' | 'b', store: Store, isLeaseHolderGone?: (holder: string) => boolean) =>
    createPoller({
      store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'warn', format: 'json', write: (line) => logs[name]!.push(JSON.parse(line) as LogLine) }),
      instanceId: name,
      newId: randomUUID,
      ...(isLeaseHolderGone ? { isLeaseHolderGone } : {}),
    });

  beforeEach(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
    second = openSqliteArchive(archive.path);
  });
  afterEach(async () => {
    second.close();
    archive.remove();
    await vendor.close();
  });

  it('refuses the stale piece, plans it again, and records the change once', async () => {
    const storeA = archive.store;
    const storeB = createSqliteStore(second.connection);
    // a believes b is gone (stalled, say), so it takes b's poll lease over and polls meanwhile.
    const a = newPoller('a', storeA, (holder) => holder === 'b');
    const original = rawIncident({ id: 1 });
    await vendor.setIncidents([original]);
    expect((await a.pollOnce()).status).toBe('ok'); // seeds the archive: revision 1
    await storeA.createSubscription({
      id: 'sub_hook',
      channel: 'webhook',
      target: 'https://hooks.example.test/a',
      filters: {},
      timeZone: 'UTC',
      status: 'active',
      origin: 'admin',
      pausedReason: null,
      secretSealed: 'sealed',
      previousSecretSealed: null,
      previousSecretUntil: null,
      failingSince: null,
      lastSuccessAt: null,
      createdAt: now,
      updatedAt: now,
    });

    await vendor.setIncidents([{ ...original, title: 'Edited' }]);
    // b plans the edit; just before b writes it, a polls and writes the same edit first.
    let raced: PollResult | null = null;
    const racing: Store = {
      ...storeB,
      async applyPoll(input) {
        raced ??= await a.pollOnce();
        return storeB.applyPoll(input);
      },
    };
    const b = newPoller('b', racing);
    const late = await b.pollOnce();

    const first = raced as PollResult | null;
    expect(first?.status !== 'skipped' && first?.events.map((e) => e.type)).toEqual(['incident.updated']);
    expect(late.status !== 'skipped' && { status: late.status, events: late.events }).toEqual({ status: 'ok', events: [] });
    expect(logs.b!.map((l) => l.msg)).toContain('archive moved under this poll; planning again');

    // The vendor made one incident and edited its title once: two versions, two events, and the
    // subscriber hears of the edit once.
    expect((await storeB.listVersions('1', 10)).map((v) => v.incident.title)).toEqual([original.title, 'Edited']);
    expect((await storeB.listEvents({}, 0, 10)).map((e) => e.type)).toEqual(['incident.created', 'incident.updated']);
    expect((await storeB.listDeliveries({}, null, 10)).map((d) => [d.subscriptionId, d.eventIds])).toEqual([['sub_hook', ['1.r2.updated']]]);
  });

  it('re-plans while another writer keeps moving the archive, then leaves the rest pending: never a failed run', async () => {
    const storeA = archive.store;
    const storeB = createSqliteStore(second.connection);
    const a = newPoller('a', storeA, (holder) => holder === 'b');
    const original = rawIncident({ id: 1 });
    await vendor.setIncidents([original]);
    expect((await a.pollOnce()).status).toBe('ok');

    await vendor.setIncidents([{ ...original, title: 'Edited by b' }]);
    // Before each of b's writes, the vendor edits the title again and a archives that edit first:
    // every plan of b meets a moved revision, as many times as b tries.
    let edits = 0;
    const racing: Store = {
      ...storeB,
      async applyPoll(input) {
        edits++;
        await vendor.setIncidents([{ ...original, title: `Edit ${edits}` }]);
        expect((await a.pollOnce()).status).toBe('ok');
        return storeB.applyPoll(input);
      },
    };
    const b = newPoller('b', racing);
    const late = await b.pollOnce();

    expect(edits).toBeGreaterThan(1);
    expect(late.status !== 'skipped' && { status: late.status, pending: late.run.pendingIncidents, error: late.run.error }).toEqual({
      status: 'ok',
      pending: 1,
      error: undefined,
    });
    expect(logs.b!.map((l) => l.msg)).toContain('the archive kept moving under this poll; the next poll plans the rest again');
    const runs = await storeB.listPollRuns(null, 20);
    expect(runs.map((r) => r.outcome)).not.toContain('failed');
    // The archive holds every edit that was written, each once, and the next poll of b finds the
    // vendor's latest title already in.
    expect((await storeB.listVersions('1', 20)).at(-1)?.incident.title).toBe(`Edit ${edits}`);
    const next = await newPoller('b', storeB).pollOnce();
    expect(next.status !== 'skipped' && { status: next.status, events: next.events }).toEqual({ status: 'ok', events: [] });
  });
});
