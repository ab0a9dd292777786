/**
 * Moving an archive from Node to Workers as the README says: `statuswatch export-d1` on a Node
 * archive, then wrangler (a real child process) applies drizzle/ and executes the file into a
 * local D1, which Miniflare opens; the store port over D1 must answer as the Node store does.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { unstable_splitSqlQuery } from 'wrangler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { D1_MAX_STATEMENT_BYTES } from '../../src/adapters/sql-insert-dump.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createPoller } from '../../src/app/poller.ts';
import type { Clock, Store } from '../../src/core/ports.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { runCli } from '../helpers/cli.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { runToEnd } from '../helpers/run-to-end.ts';

/** One wrangler command: about 5 s alone; the rest is room for a loaded machine, within the 120 s set-up. */
const WRANGLER_TIMEOUT_MS = 50_000;
const WRANGLER = fileURLToPath(new URL('../../node_modules/wrangler/bin/wrangler.js', import.meta.url));
const DRIZZLE = fileURLToPath(new URL('../../drizzle', import.meta.url));
const D1_ID = 'statuswatch-export-test';

// Text a careless dump would break: quotes, unicode, newlines, wrangler's transaction words.
const TRICKY_NOTE = `<p>It's "fixed" — 修正済み 🎉, naïve café</p>\n<p>-- not a comment; /* nor this */ BEGIN TRANSACTION; COMMIT; END;</p>`;
// Longer than one D1 statement may be: it must arrive whole, in several statements.
const LONG_NOTE = `<p>${"Kerberos tickets are being reissued. ü🎉's ".repeat(4_000)}</p>`;

describe('statuswatch export-d1, imported by wrangler into D1', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let mf: Miniflare | undefined;
  let d1Store: Store;
  let sqlText: string;
  let lastFeed: RawIncident[] = [];
  let now = Date.UTC(2026, 10, 23, 9, 0, 0);
  const clock: Clock = { now: () => now };

  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
    const poller = createPoller({
      store: archive.store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: 'node',
      newId: randomUUID,
    });
    const kerberos = rawIncident({
      id: 2001,
      title: 'Kerberos sign-in fails',
      services: ['Login/SSO'],
      notes: [{ body: LONG_NOTE, date_created: '2026-11-20T08:00:00-08:00' }],
    });
    const tricky = rawIncident({ id: 2002, title: "Files can't upload — ファイル", services: ['Files', 'Messaging'] });
    await vendor.setIncidents([kerberos, tricky]);
    expect((await poller.pollOnce()).status).toBe('ok'); // the backfill
    await archive.store.createSubscription({
      id: 'sub_hook',
      channel: 'webhook',
      target: 'https://hooks.example.test/a',
      filters: {},
      timeZone: 'UTC',
      status: 'active',
      origin: 'admin',
      pausedReason: null,
      secretSealed: 'sealed-secret',
      previousSecretSealed: null,
      previousSecretUntil: null,
      failingSince: null,
      lastSuccessAt: null,
      createdAt: now,
      updatedAt: now,
    });
    now += 60_000;
    lastFeed = [kerberos, { ...tricky, status: 'resolved', notes: [...tricky.notes, { body: TRICKY_NOTE, date_created: '2026-10-01T07:00:00-07:00' }] }];
    await vendor.setIncidents(lastFeed);
    expect((await poller.pollOnce()).status).toBe('ok'); // a status change and a note: events and deliveries
    const [claimed] = await archive.store.claimDueDeliveries('node', now, 60_000, 1);
    await archive.store.recordAttempts('node', [
      {
        deliveryId: claimed!.delivery.id,
        attempt: { attemptedAt: now, ok: false, status: 500, durationMs: 12, responseExcerpt: "oops \u{1F4A5} 'quoted'", error: 'HTTP 500' },
        outcome: { kind: 'retry', at: now + 30_000, error: 'HTTP 500' },
        health: { kind: 'failed' },
      },
    ]);

    const out = join(archive.dir, 'archive.sql');
    const exported = await runCli(['export-d1', '--database-path', archive.path, '--out', out]);
    expect(exported.stderr).not.toContain('statuswatch:');
    expect(exported.code).toBe(0);
    sqlText = readFileSync(out, 'utf8');

    // The README's steps, with --local instead of --remote.
    const project = join(archive.dir, 'worker');
    mkdirSync(project);
    writeFileSync(
      join(project, 'wrangler.toml'),
      `name = "export-test"\ncompatibility_date = "2026-04-26"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "statuswatch"\ndatabase_id = "${D1_ID}"\nmigrations_dir = ${JSON.stringify(DRIZZLE)}\n`,
    );
    const persist = join(archive.dir, 'd1-state');
    const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' };
    const wrangler = (...args: string[]) =>
      runToEnd(process.execPath, [WRANGLER, ...args, '--local', '--persist-to', persist], { cwd: project, env, timeoutMs: WRANGLER_TIMEOUT_MS });
    await wrangler('d1', 'migrations', 'apply', 'DB');
    await wrangler('d1', 'execute', 'DB', '--file', out, '--yes');

    mf = new Miniflare({
      modules: true,
      script: 'export default {}',
      compatibilityDate: '2026-04-26',
      d1Databases: { DB: D1_ID },
      d1Persist: join(persist, 'v3', 'd1'),
    });
    d1Store = createSqliteStore(d1Connection((await mf.getD1Database('DB')) as unknown as D1DatabaseLike));
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    archive?.remove();
    await vendor?.close();
  });

  it('writes only data, in statements wrangler splits apart and D1 accepts', () => {
    const statements = unstable_splitSqlQuery(sqlText);
    expect(statements.length).toBeGreaterThan(5);
    for (const statement of statements) {
      expect(statement).toMatch(/^(INSERT INTO|UPDATE) "/);
      expect(Buffer.byteLength(statement)).toBeLessThan(D1_MAX_STATEMENT_BYTES);
    }
    expect(sqlText).not.toMatch(/BEGIN TRANSACTION|CREATE TABLE|sqlite_sequence|__drizzle_migrations|INSERT INTO "leases"/);
    // The long note could not fit in one statement: it is appended in pieces.
    expect(statements.filter((s) => s.startsWith('UPDATE "notes"')).length).toBeGreaterThan(1);
  });

  it('reads back on D1 as on Node: incidents, notes, versions, search', async () => {
    const nodeList = await archive.store.listIncidents({}, null, 100);
    expect(nodeList.map((i) => i.id).sort()).toEqual(['2001', '2002']);
    expect(await d1Store.listIncidents({}, null, 100)).toEqual(nodeList);
    for (const id of ['2001', '2002']) {
      expect(await d1Store.getIncident(id)).toEqual(await archive.store.getIncident(id));
      expect(await d1Store.listVersions(id, 50)).toEqual(await archive.store.listVersions(id, 50));
    }
    const kerberos = await d1Store.getIncident('2001');
    expect(kerberos!.notes.map((n) => n.body)).toEqual([LONG_NOTE]);
    const tricky = await d1Store.getIncident('2002');
    expect(tricky!.notes.map((n) => n.body)).toContain(TRICKY_NOTE);
    expect(tricky!.title).toBe("Files can't upload — ファイル");
    for (const q of ['kerberos', 'reissued', 'café', 'fixed']) {
      const onD1 = await d1Store.listIncidents({ q }, null, 10);
      expect(onD1.length, q).toBeGreaterThan(0);
      expect(onD1, q).toEqual(await archive.store.listIncidents({ q }, null, 10));
    }
    expect(await d1Store.knownServices(50)).toEqual(await archive.store.knownServices(50));
  });

  it('reads back on D1 as on Node: events, subscriptions, deliveries and their attempts, poll runs', async () => {
    const events = await archive.store.listEvents({ includeBackfill: true }, 0, 100);
    expect(events.map((e) => e.id)).toEqual(expect.arrayContaining(['2002.r2.status', '2001.r1.created']));
    expect(await d1Store.listEvents({ includeBackfill: true }, 0, 100)).toEqual(events);
    expect(await d1Store.getSubscription('sub_hook')).toEqual(await archive.store.getSubscription('sub_hook'));
    const deliveries = await archive.store.listDeliveries({}, null, 100);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(await d1Store.listDeliveries({}, null, 100)).toEqual(deliveries);
    for (const delivery of deliveries) expect(await d1Store.getDelivery(delivery.id)).toEqual(await archive.store.getDelivery(delivery.id));
    expect((await d1Store.getDelivery(deliveries.at(-1)!.id))!.attempts.map((a) => a.responseExcerpt)).toContain("oops \u{1F4A5} 'quoted'");
    expect(await d1Store.listPollRuns(null, 10)).toEqual(await archive.store.listPollRuns(null, 10));
    expect(await d1Store.deliveryCounts(now)).toEqual(await archive.store.deliveryCounts(now));
  });

  it('picks up on D1 where Node left off: the next poll there records only what is new, numbered after the imported rows', async () => {
    const before = await d1Store.listEvents({ includeBackfill: true }, 0, 100);
    const deliveriesBefore = await d1Store.listDeliveries({}, null, 100);
    const onWorkers = createPoller({
      store: d1Store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 5000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger: createConsoleLogger({ level: 'error', format: 'json', write: () => {} }),
      instanceId: 'workers',
      newId: randomUUID,
    });
    now += 60_000;
    // The vendor still shows what Node archived, plus one new incident.
    await vendor.setIncidents([...lastFeed, rawIncident({ id: 2003, title: 'Huddles drop', services: ['Huddles'] })]);
    const result = await onWorkers.pollOnce();
    expect(result.status).toBe('ok');
    const added = (await d1Store.listEvents({ includeBackfill: true }, 0, 100)).slice(before.length);
    expect(added.map((e) => [e.id, e.backfill])).toEqual([['2003.r1.created', false]]);
    expect(added[0]!.seq).toBeGreaterThan(Math.max(...before.map((e) => e.seq)));
    const newDeliveries = (await d1Store.listDeliveries({}, null, 100)).filter((d) => !deliveriesBefore.some((b) => b.id === d.id));
    expect(newDeliveries).toHaveLength(1);
    expect(newDeliveries[0]!.id).toBeGreaterThan(Math.max(...deliveriesBefore.map((d) => d.id)));
  });
});

describe('statuswatch export-d1, refusals', () => {
  it('needs --out, an archive that exists, and a file that does not', async () => {
    const archive = openTempArchive();
    try {
      const noOut = await runCli(['export-d1', '--database-path', archive.path]);
      expect(noOut.code).toBe(2);
      expect(noOut.stderr).toContain('--out "": missing. Fix: name the SQL file to write');
      const missing = await runCli(['export-d1', '--database-path', join(archive.dir, 'nope.db'), '--out', join(archive.dir, 'a.sql')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('no archive there');
      writeFileSync(join(archive.dir, 'taken.sql'), 'keep me');
      const taken = await runCli(['export-d1', '--database-path', archive.path, '--out', join(archive.dir, 'taken.sql')]);
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain('the file exists already');
      expect(readFileSync(join(archive.dir, 'taken.sql'), 'utf8')).toBe('keep me');
    } finally {
      archive.remove();
    }
  });

  it('refuses an archive holding a row D1 cannot store, names it, and leaves no half-written file', async () => {
    const archive = openTempArchive();
    try {
      // A refused page kept as its first 1,000,000 characters, as archives written before the
      // 65,536-character cap hold them: with its key, more than the 1,000,000 bytes D1 holds in a row.
      await archive.store.recordPollRun({ id: 'run-1', startedAt: 1, finishedAt: 2, outcome: 'failed', sources: [], changes: {} }, [
        { source: 'v2/history', url: 'https://slack-status.com/api/v2.0.0/history', body: '<html>', error: 'not JSON', sha256: 'a'.repeat(64) },
      ]);
      archive.sqlite.prepare('UPDATE rejected_body_texts SET body = ? WHERE hash = ?').run(`<html>${'x'.repeat(999_994)}`, 'a'.repeat(64));
      const out = join(archive.dir, 'archive.sql');
      const refused = await runCli(['export-d1', '--database-path', archive.path, '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/a row of rejected_body_texts \(hash a{64}\) holds 1000064 bytes, more than D1's 1000000 per row/);
      expect(refused.stderr).toContain('let retention remove it');
      expect(existsSync(out)).toBe(false);
    } finally {
      archive.remove();
    }
  });
});
