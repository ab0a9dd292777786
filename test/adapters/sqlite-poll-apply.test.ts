/**
 * The poll's apply as a fixed list of statements: on a real SQLite file, every statement the
 * connection executes while applying a piece is logged (better-sqlite3's `verbose`), and none
 * reads before a write. A read whose result decided a later write could not run as one D1 batch.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { betterSqlite3Connection } from '../../src/adapters/better-sqlite3-connection.ts';
import { READ_LAST_GOOD_READ } from '../../src/adapters/sqlite-archive-writes.ts';
import { planPoll } from '../../src/core/diff.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import type { Incident } from '../../src/core/incident.ts';
import type { PollRun, Store } from '../../src/core/ports.ts';
import { toFtsQuery } from '../../src/core/search-query.ts';
import { one, rawIncident } from '../fixtures/vendor-builders.ts';
import { queryPlan } from '../helpers/query-plan.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);

const run = (id: string, startedAt: number): PollRun => ({ id, startedAt, finishedAt: startedAt, outcome: 'ok', sources: [], changes: {} });

/** Plans a poll of `observed` as the poller does: versions and events, then the deliveries. */
async function planned(store: Store, observed: Incident[], now: number, backfill: boolean) {
  const plan = planPoll({ observed, archived: await store.loadIncidents(observed.map((i) => i.id)), now, backfill });
  const deliveries = planDeliveries(plan.events, await store.activeSubscriptions());
  return { plan, deliveries };
}

/** Top-level statements only: a sub-select inside a write is part of that write. */
async function subscribe(store: Store, id: string) {
  await store.createSubscription({
    id,
    channel: 'webhook',
    target: `https://hooks.example.test/${id}`,
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
    createdAt: T0,
    updatedAt: T0,
  });
}

const isRead = (statement: string) => /^\s*(SELECT|WITH)\b/i.test(statement);
const isWrite = (statement: string) => /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(statement);

describe('SQLite poll apply', () => {
  let archive: TempArchive;
  let traced: Database.Database;
  let executed: string[];
  let store: Store;

  beforeEach(async () => {
    archive = openTempArchive();
    // A second connection to the same file that logs every statement it executes.
    executed = [];
    traced = new Database(archive.path, { verbose: (sql) => executed.push(String(sql)) });
    traced.pragma('busy_timeout = 5000');
    store = createSqliteStore(betterSqlite3Connection(traced));
  });
  afterEach(() => {
    traced.close();
    archive.remove();
  });

  it('writes a piece with no read before its last write: ids, sort keys and checks come from sub-selects', async () => {
    // Seeded with one incident, and one subscriber who hears of everything.
    const first = one(rawIncident({ id: 1, services: ['Messaging'] }));
    const seed = await planned(store, [first], T0, true);
    await store.applyPoll({ run: run('seed', T0), ...seed, seenIds: [first.id], seenBefore: T0, rejected: [], markSeeded: true });
    await subscribe(store, 'sub_all');

    // The next poll touches every kind of write: an edited incident (title, services, a new
    // note, another creation date), a new one, events, a delivery, a rejected body, last_seen.
    const now = T0 + 60_000;
    const edited = one(
      rawIncident({
        id: 1,
        title: 'Edited title',
        services: ['Messaging', 'Files'],
        date_created: '2026-10-01T05:40:00-07:00',
        notes: [...rawIncident().notes, { body: '<p>Resolved.</p>', date_created: '2026-10-01T06:10:00-07:00' }],
      }),
    );
    const added = one(rawIncident({ id: 2, title: 'Second incident' }));
    const poll = await planned(store, [edited, added], now, false);
    expect(poll.deliveries.length).toBeGreaterThan(0);
    const rejected = [{ source: 'v1/current' as const, url: 'http://x/v1', body: '<html>down</html>', error: 'invalid JSON', sha256: 'b'.repeat(64) }];

    executed = [];
    await store.applyPoll({ run: run('news', now), ...poll, seenIds: [edited.id, added.id], seenBefore: now, rejected, markSeeded: false });
    const lastWrite = executed.findLastIndex(isWrite);
    expect(lastWrite).toBeGreaterThan(0);
    expect(executed.slice(0, lastWrite).filter(isRead)).toEqual([]);

    // And it wrote what the scenario says: both incidents as the feed shows them, found by search
    // and by service, one event per change, one delivery per event.
    expect(await store.getIncident('1')).toMatchObject({ title: 'Edited title', services: ['Messaging', 'Files'], revision: 2 });
    expect(await store.getIncident('2')).toMatchObject({ title: 'Second incident', revision: 1 });
    expect((await store.listIncidents({ q: toFtsQuery('resolved')! }, null, 10)).map((i) => i.id)).toEqual(['1']);
    expect((await store.listIncidents({ services: ['Files'] }, null, 10)).map((i) => i.id)).toEqual(['1']);
    const news = (await store.listEvents({ includeBackfill: false }, 0, 100)).map((e) => `${e.incidentId} ${e.type}`).sort();
    expect(news).toEqual(['1 incident.note_added', '1 incident.updated', '2 incident.created']);
    // A webhook hears of each event once.
    const delivered = (await store.listDeliveries({}, null, 100)).map((d) => `${d.subscriptionId} ${d.eventIds.join('+')}`).sort();
    expect(delivered).toEqual((await store.listEvents({ includeBackfill: false }, 0, 100)).map((e) => `sub_all ${e.id}`).sort());
  });

  it("writes a title edit without touching the incident's list indexes, reading the seen list once and no JSON back", async () => {
    // Three incidents seen every minute; then the vendor retitles one and nothing else.
    const seen = [1, 2, 3].map((id) => one(rawIncident({ id, title: `Incident ${id}` })));
    const ids = seen.map((i) => i.id);
    const seed = await planned(store, seen, T0, true);
    await store.applyPoll({ run: run('seed', T0), ...seed, seenIds: ids, seenBefore: T0, rejected: [], markSeeded: true });
    const byStatus = async () => (await store.listIncidents({ statuses: ['active'] }, null, 10)).map((i) => i.id);
    const listed = await byStatus();
    expect(listed).toEqual(['3', '2', '1']);

    const now = T0 + 60_000;
    const retitled = one(rawIncident({ id: 2, title: 'Incident 2, retitled' }));
    const poll = await planned(store, [seen[0]!, retitled, seen[2]!], now, false);
    const sources = [{ source: 'v2/history' as const, sha256: 'a'.repeat(64), incidents: 3, skipped: 0 }];
    const before = await store.lastDiff();
    executed = [];
    const generation = await store.applyPoll({
      run: run('retitle', now),
      ...poll,
      seenIds: ids,
      seenBefore: now - 600_000,
      rejected: [],
      markSeeded: false,
      diffedFeed: { atMs: now, sources },
    });

    // The incident's row changes only in columns no list order is indexed by.
    const update = executed.find((sql) => /^\s*UPDATE incidents SET/i.test(sql) && /\btitle\s*=/.test(sql));
    expect(update).toBeDefined();
    expect(update).not.toMatch(/\b(sort_key|type|status|updated_ms|resolved_ms|created_ms)\s*=/);
    // One statement goes through the seen ids (the last-seen refresh); the kept feed is not parsed.
    expect(executed.filter((sql) => sql.includes('json_each'))).toHaveLength(1);
    expect(executed.filter((sql) => /json_(set|insert|replace|patch)\(/.test(sql))).toEqual([]);

    // And the archive reads as the scenario says: the new title, found by search, listed where it was.
    expect(await store.getIncident('2')).toMatchObject({ title: 'Incident 2, retitled', status: 'active', revision: 2 });
    expect((await store.listIncidents({ q: toFtsQuery('retitled')! }, null, 10)).map((i) => i.id)).toEqual(['2']);
    expect(await byStatus()).toEqual(listed);
    expect(generation).not.toBe(0);
    expect(await store.lastDiff()).toEqual({ generation: before.generation + 1, diffed: { atMs: now, generation: before.generation + 1, sources } });
  });

  it("rewrites a retitled incident's search row with its unchanged notes' stored texts, converting no note again", async () => {
    const seeded = one(rawIncident({ id: 1, title: 'Incident 1' }));
    const seed = await planned(store, [seeded], T0, true);
    await store.applyPoll({ run: run('seed', T0), ...seed, seenIds: [seeded.id], seenBefore: T0, rejected: [], markSeeded: true });
    // The stored text of a note stands for its body (as an older conversion left it, say): a title
    // edit keeps it, in the note's row and in the search row, rather than converting the body again.
    archive.sqlite.prepare(`UPDATE notes SET text = 'stored-text-' || seq WHERE incident_id = '1'`).run();

    const now = T0 + 60_000;
    const poll = await planned(store, [one(rawIncident({ id: 1, title: 'Incident 1, retitled' }))], now, false);
    await store.applyPoll({ run: run('retitle', now), ...poll, seenIds: ['1'], seenBefore: now - 600_000, rejected: [], markSeeded: false });

    const search = archive.sqlite.prepare(`SELECT title, notes FROM incidents_fts WHERE rowid = (SELECT sort_key FROM incidents WHERE id = '1')`).get() as {
      title: string;
      notes: string;
    };
    const stored = (archive.sqlite.prepare(`SELECT text FROM notes WHERE incident_id = '1' ORDER BY seq`).all() as { text: string }[]).map((n) => n.text);
    expect(stored).toHaveLength(seeded.notes.length);
    expect(stored.every((text) => text.startsWith('stored-text-'))).toBe(true);
    expect(search).toEqual({ title: 'Incident 1, retitled', notes: stored.join('\n\n') });
  });

  it('moves both generations on a last-seen refresh alone, and neither when nothing was written', async () => {
    const seen = [1, 2].map((id) => one(rawIncident({ id })));
    const ids = seen.map((i) => i.id);
    const seed = await planned(store, seen, T0, true);
    await store.applyPoll({ run: run('seed', T0), ...seed, seenIds: ids, seenBefore: T0, rejected: [], markSeeded: true });
    const empty = { writes: [], events: [] };
    const start = { archive: await store.archiveGeneration(), main: (await store.lastDiff()).generation };

    // Seen again a minute later, last seen still fresh: nothing written, nothing moves.
    await store.applyPoll({ run: run('quiet', T0 + 60_000), plan: empty, deliveries: [], seenIds: ids, seenBefore: T0 - 1, rejected: [], markSeeded: false });
    expect({ archive: await store.archiveGeneration(), main: (await store.lastDiff()).generation }).toEqual(start);

    // Seen after the precision passed: the refresh writes both rows, and both generations move once.
    await store.applyPoll({
      run: run('refresh', T0 + 700_000),
      plan: empty,
      deliveries: [],
      seenIds: ids,
      seenBefore: T0 + 1,
      rejected: [],
      markSeeded: false,
    });
    expect({ archive: await store.archiveGeneration(), main: (await store.lastDiff()).generation }).toEqual({
      archive: start.archive + 1,
      main: start.main + 1,
    });
    expect((await store.getIncident('1'))?.lastSeenAt).toBe(T0 + 700_000);
  });

  it('leaves the last-seen refresh out of a piece that saw no incident, and still moves both generations when it writes and neither when not', async () => {
    const first = one(rawIncident({ id: 1, title: 'First' }));
    const seed = await planned(store, [first], T0, true);
    await store.applyPoll({ run: run('seed', T0), ...seed, seenIds: [first.id], seenBefore: T0, rejected: [], markSeeded: true });
    const generations = async () => ({ archive: await store.archiveGeneration(), main: (await store.lastDiff()).generation });
    const start = await generations();

    // A run recorded with nothing written and nothing seen (a monitor step, a piece before the last).
    executed = [];
    const empty = { writes: [], events: [] };
    await store.applyPoll({ run: run('none', T0 + 60_000), plan: empty, deliveries: [], seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
    expect(executed.filter((sql) => sql.includes('json_each'))).toEqual([]);
    expect(await generations()).toEqual(start);

    // An edit with nothing seen besides (a diff that skipped the refresh): both generations move once.
    const edited = one(rawIncident({ id: 1, title: 'First, edited' }));
    const poll = await planned(store, [edited], T0 + 120_000, false);
    executed = [];
    await store.applyPoll({ run: run('edit', T0 + 120_000), ...poll, seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
    expect(executed.filter((sql) => sql.includes('json_each'))).toEqual([]);
    expect(await generations()).toEqual({ archive: start.archive + 1, main: start.main + 1 });
    expect(await store.getIncident('1')).toMatchObject({ title: 'First, edited', lastSeenAt: T0 + 120_000 });
  });

  it("plans a poll's deliveries for the subscriptions its opening found, reading the list again only once it moved", async () => {
    const claim = (now: number) => ({ name: 'poll', holder: 'poller', now, ttlMs: 60_000 });
    const readsOfSubscriptions = () => executed.filter((sql) => isRead(sql) && /\bsubscriptions\b/.test(sql));
    await subscribe(store, 'sub_a');
    expect((await store.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_a']);

    // Nothing changed since the list was read: the opening's version stands for it.
    executed = [];
    const opening = await store.openPoll(claim(T0));
    expect((await store.activeSubscriptions(opening.subscriptionsVersion)).map((s) => s.id)).toEqual(['sub_a']);
    expect(readsOfSubscriptions()).toEqual([]);
    await store.releaseLease('poll', 'poller');

    // Another process subscribes: the next opening sees the version move, and the list is read.
    await subscribe(archive.store, 'sub_b');
    executed = [];
    const next = await store.openPoll(claim(T0 + 60_000));
    expect(next.subscriptionsVersion).not.toBe(opening.subscriptionsVersion);
    expect((await store.activeSubscriptions(next.subscriptionsVersion)).map((s) => s.id)).toEqual(['sub_a', 'sub_b']);
    expect(readsOfSubscriptions()).toHaveLength(1);
  });

  it('opens a poll knowing the last good read among a month of minute runs through the outcome index, never a scan of the runs kept', async () => {
    // The month's runs are kept (RETENTION_POLL_RUNS_DAYS' default: 30 days, one run a minute).
    // Each poll opens with its lease and the main feed's last good read, then gives the lease back.
    let nowMs = T0;
    const claim = () => ({ name: 'poll', holder: 'bench', now: nowMs, ttlMs: 60_000 });
    const openAndClose = async () => {
      const opening = await archive.store.openPoll(claim());
      await archive.store.releaseLease('poll', 'bench');
      return opening;
    };
    for (let i = 0; i < 20; i++) {
      nowMs += 60_000;
      await archive.store.recordPollRun(run(`run-${nowMs}`, nowMs), []);
    }
    const lastGood = nowMs;
    // The newest run failed: it is no good read.
    nowMs += 60_000;
    await archive.store.recordPollRun({ ...run('failed', nowMs), outcome: 'failed', error: 'HTTP 503' }, []);
    const month = 30 * 24 * 60;
    archive.sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO poll_runs (id, started_ms, finished_ms, outcome, sources_json, changes_json, event_count)
         SELECT 'old-' || i, ? - i * 60000, ? - i * 60000, CASE WHEN i % 50 = 0 THEN 'partial' ELSE 'ok' END, '[]', '{}', 0 FROM n`,
      )
      .run(month, T0, T0);
    expect((await openAndClose()).lastGoodReadAt).toBe(lastGood);

    // Its cost does not grow with the runs kept: max(started_ms) of each good outcome is the last
    // entry of that outcome's range in poll_runs_outcome (outcome, started_ms), one seek each.
    const throughOutcomeIndex = (plan: string[]) =>
      plan.some((d) => /^SEARCH poll_runs USING (COVERING )?INDEX poll_runs_outcome \(outcome=\?\)$/.test(d)) && !plan.some((d) => /^SCAN poll_runs\b/.test(d));
    // As the store runs it (it never gathers statistics), and after an operator's ANALYZE.
    const plan = queryPlan(archive.sqlite, READ_LAST_GOOD_READ);
    expect(plan, plan.join('; ')).toSatisfy(throughOutcomeIndex);
    archive.sqlite.exec('ANALYZE');
    const analyzed = queryPlan(archive.sqlite, READ_LAST_GOOD_READ);
    expect(analyzed, analyzed.join('; ')).toSatisfy(throughOutcomeIndex);
    // The check tells a lookup that cannot use the index from one that does.
    const scanning = READ_LAST_GOOD_READ.replace(/FROM poll_runs\b/, 'FROM poll_runs NOT INDEXED');
    expect(scanning).not.toBe(READ_LAST_GOOD_READ);
    expect(queryPlan(archive.sqlite, scanning)).not.toSatisfy(throughOutcomeIndex);
    archive.sqlite.exec('DROP INDEX poll_runs_outcome');
    expect(queryPlan(archive.sqlite, READ_LAST_GOOD_READ)).not.toSatisfy(throughOutcomeIndex);
  });
});
