/**
 * The deliverer's claim on a real SQLite file, the statement it runs caught as the connection
 * executes it (better-sqlite3's `verbose`): its plan must walk the due deliveries in due order and
 * stop at the claim's limit, not gather and sort every pending row for each claim of 100. A group
 * of attempts is recorded by a few multi-row statements, each finding its deliveries by id.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { betterSqlite3Connection } from '../../src/adapters/better-sqlite3-connection.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { Store } from '../../src/core/ports.ts';
import { attemptOf, pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);

describe('SQLite outbox: the claim and the record', () => {
  let archive: TempArchive;
  let traced: Database.Database;
  let executed: string[];
  let store: Store;

  beforeEach(() => {
    archive = openTempArchive();
    executed = [];
    traced = new Database(archive.path, { verbose: (sql) => executed.push(String(sql)) });
    traced.pragma('busy_timeout = 5000');
    store = createSqliteStore(betterSqlite3Connection(traced));
  });
  afterEach(() => {
    traced.close();
    archive.remove();
  });

  it('walks the due deliveries in due order and stops at the limit: no sort of every pending row', async () => {
    for (let n = 0; n < 20; n++) await store.createSubscription(storedSubscription(`sub_${String(n).padStart(2, '0')}`, {}, T0 - 1000));
    await pollNews(store, [rawIncident({ id: 5001, title: 'Messages fail to send' })], T0);
    executed = [];
    expect(await store.claimDueDeliveries('a', T0, 60_000, 5)).toHaveLength(5);
    const claim = executed.find((sql) => /^\s*update "deliveries" set "claimed_by"/i.test(sql));
    expect(claim).toBeDefined();
    // verbose shows the statement with its values in place: the plan is that of the claim as run.
    const plan = (archive.sqlite.prepare(`EXPLAIN QUERY PLAN ${claim}`).all() as { detail: string }[]).map((row) => row.detail);
    expect(plan).toContainEqual(expect.stringMatching(/SEARCH deliveries USING INDEX deliveries_due/));
    expect(plan.filter((detail) => /TEMP B-TREE/.test(detail))).toEqual([]);
  });

  it('records 30 attempts in three multi-row inserts and three updates, each finding its deliveries by id', async () => {
    for (let n = 0; n < 30; n++) await store.createSubscription(storedSubscription(`sub_${String(n).padStart(2, '0')}`, {}, T0 - 1000));
    await pollNews(store, [rawIncident({ id: 5001, title: 'Messages fail to send' })], T0);
    const claimed = await store.claimDueDeliveries('a', T0, 60_000, 100);
    expect(claimed).toHaveLength(30);
    executed = [];
    const unchanged = { kind: 'unchanged' } as const;
    const recorded = await store.recordAttempts(
      'a',
      claimed.map((c, n) => attemptOf(c.delivery.id, T0 + n, { kind: 'done' }, unchanged)),
    );
    expect(recorded).toEqual(claimed.map(() => true));
    // 14 attempts a statement: 7 parameters each and the holder stay within D1's 100.
    const inserts = executed.filter((sql) => /^\s*insert into delivery_attempts/i.test(sql));
    const updates = executed.filter((sql) => /^\s*update deliveries set attempts/i.test(sql));
    expect([inserts.length, updates.length]).toEqual([3, 3]);
    for (const statement of [inserts[0]!, updates[0]!]) {
      const plan = (archive.sqlite.prepare(`EXPLAIN QUERY PLAN ${statement}`).all() as { detail: string }[]).map((row) => row.detail);
      expect(plan).toContainEqual(expect.stringMatching(/SEARCH deliveries .*USING INTEGER PRIMARY KEY/));
      expect(plan.filter((detail) => /SCAN deliveries/.test(detail))).toEqual([]);
    }
  });
});
