/**
 * What only the SQLite file can show: a reopen, a full disk, which rows a write rewrites, the
 * search index's own rows, and a migration of an old file. Everything the Store port can answer
 * is in the contract suites (test/contracts/archive-*.contract.ts), run here by sqlite-contracts.test.ts.
 */
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planPoll } from '../../src/core/diff.ts';
import type { Incident } from '../../src/core/incident.ts';
import type { PollRun, Store } from '../../src/core/ports.ts';
import { toFtsQuery } from '../../src/core/search-query.ts';
import { one, rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { MIGRATIONS_DIR } from '../../src/entry/open-sqlite.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
let runCounter = 0;

function run(outcome: PollRun['outcome'], startedAt = T0): PollRun {
  return { id: `run-${++runCounter}`, startedAt, finishedAt: startedAt + 5, outcome, sources: [], changes: {} };
}

async function applyObserved(store: Store, observed: Incident[], now = T0, backfill = false) {
  const archived = await store.loadIncidents(observed.map((i) => i.id));
  const plan = planPoll({ observed, archived, now, backfill });
  await store.applyPoll({
    deliveries: [],
    run: run('ok', now),
    plan,
    seenIds: observed.map((i) => i.id),
    seenBefore: Number.MAX_SAFE_INTEGER,
    rejected: [],
    markSeeded: true,
  });
  return plan;
}

describe('SQLite store', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('stores incidents with notes and reads them back exactly, across a reopen', async () => {
    const incident = one(rawIncident());
    await applyObserved(archive.store, [incident]);
    archive = archive.reopen();
    const stored = await archive.store.getIncident('1579');
    expect(stored).toMatchObject({ ...incident, revision: 1, firstSeenAt: T0, lastSeenAt: T0, resolvedAt: null });
    expect(await archive.store.isSeeded()).toBe(true);
  });

  it('writes only what changed: a status change leaves notes, services and the search row alone', async () => {
    const base = rawIncident({ services: ['Files', 'Search'] });
    await applyObserved(archive.store, [one(base)]);
    const rowsOf = () =>
      archive.sqlite
        .prepare(
          `SELECT (SELECT group_concat(key || ':' || changed_ms) FROM notes) AS notes,
                  (SELECT group_concat(rowid) FROM incident_services) AS services,
                  (SELECT group_concat(rowid) FROM incidents_fts) AS search`,
        )
        .get();
    const before = rowsOf();
    await applyObserved(archive.store, [one({ ...base, status: 'resolved' })], T0 + 60_000);
    expect(rowsOf()).toEqual(before);
    expect((await archive.store.getIncident('1579'))?.status).toBe('resolved');
  });

  it('writes all of a poll or none of it when the disk fills up', async () => {
    await applyObserved(archive.store, [one(rawIncident({ id: 1 }))]);
    const pages = (archive.sqlite.pragma('page_count', { simple: true }) as number) + 1;
    archive.sqlite.pragma(`max_page_count = ${pages}`);
    const big = Array.from({ length: 50 }, (_, i) =>
      one(rawIncident({ id: 100 + i, notes: [{ body: 'x'.repeat(4000), date_created: '2026-10-01T05:39:35-07:00' }] })),
    );
    await expect(applyObserved(archive.store, big)).rejects.toThrow(/full/i);
    const { store } = archive;
    expect((await store.listIncidents({}, null, 100)).map((i) => i.id)).toEqual(['1']);
    expect((await store.listEvents({}, 0, 100)).map((e) => e.incidentId)).toEqual(['1']);
    expect(await store.listPollRuns(null, 100)).toHaveLength(1);
  });

  it('leaves no stale search row when date_created is re-stamped (the row is keyed by sort key)', async () => {
    // Through the port a stale row is invisible (it joins no incident), but it would still count
    // against the search budget and grow the index: only the table can tell.
    const raw = rawIncident({ id: 1, title: 'Files fail to upload', date_created: '2026-07-01T10:00:00-07:00' });
    await applyObserved(archive.store, [one(raw), one(rawIncident({ id: 2 })), one(rawIncident({ id: 3 }))]);
    await applyObserved(archive.store, [one({ ...raw, date_created: '2026-09-30T10:00:00-07:00' })], T0 + 1);
    expect(archive.sqlite.prepare('SELECT count(*) AS n FROM incidents_fts').get()).toEqual({ n: 3 });
    expect((await archive.store.listIncidents({ q: toFtsQuery('upload')! }, null, 10)).map((i) => i.id)).toEqual(['1']);
  });

  it('builds the SQL of the hot reads once, not on every call: the widget, the badge, /healthz and the event log', async () => {
    await applyObserved(archive.store, [one(rawIncident({ id: 1 })), one(rawIncident({ id: 2 }))]);
    await archive.store.recordPollRun(run('failed', T0 + 60_000), []);
    const { store } = archive;
    const reads = async () => ({
      health: await store.feedHealth(),
      ongoing: await store.ongoingIncidents(),
      all: await store.listEvents({}, 0, 10),
      ofTwo: await store.listEvents({ incidentId: '2' }, 0, 10),
      created: await store.listEvents({ types: ['incident.created'], includeBackfill: false }, 0, 10),
      since: await store.listEvents({ detectedSinceMs: T0 - 1 }, 0, 10),
    });
    const first = await reads();
    // Each SQL text SQLite is asked to compile from here on: the same reads again compile none.
    const compiled: string[] = [];
    const prepare = archive.sqlite.prepare.bind(archive.sqlite);
    archive.sqlite.prepare = ((source: string) => {
      compiled.push(source);
      return prepare(source);
    }) as typeof archive.sqlite.prepare;
    expect(await reads()).toEqual(first);
    expect(compiled).toEqual([]);
    // And the answers are the ones asked for, each filter applied.
    const { health, ongoing, all, ofTwo, created, since } = first;
    expect(health).toMatchObject({ lastSuccessAt: T0, consecutiveFailures: 1 });
    expect(ongoing).toHaveLength(2);
    expect(all.map((e) => e.incidentId)).toEqual(['1', '2']);
    expect(ofTwo.map((e) => e.incidentId)).toEqual(['2']);
    expect(created.map((e) => e.type)).toEqual(['incident.created', 'incident.created']);
    expect(since).toHaveLength(2);
  });
});

describe('upgrading an archive from before refused payloads were deduplicated', () => {
  it('keeps each refused payload visible with its poll run', async () => {
    // The migrations as they stood before 0004, applied to a real file, with a refused payload in it.
    const { dir, old } = archiveMigratedBefore('0004');
    old
      .prepare(
        `INSERT INTO poll_runs (id, started_ms, finished_ms, outcome, sources_json, changes_json, event_count) VALUES ('r1', ?, ?, 'failed', '[]', '{}', 0)`,
      )
      .run(T0, T0 + 5);
    old
      .prepare(
        `INSERT INTO rejected_payloads (poll_run_id, source, url, body, error, received_ms) VALUES ('r1', 'v2/history', 'http://x/api', '<html>été</html>', 'invalid JSON', ?)`,
      )
      .run(T0);
    old.close();

    const archive = openTempArchive(dir); // migrates to the current schema
    try {
      const shown = await archive.store.getPollRun('r1');
      expect(shown?.rejected).toMatchObject([
        { source: 'v2/history', url: 'http://x/api', error: 'invalid JSON', receivedAt: T0, body: { text: '<html>été</html>', seenCount: 1, firstSeenAt: T0 } },
      ]);
      // Counted in UTF-8 bytes, as new bodies are, for the size cap.
      expect(archive.sqlite.prepare('SELECT bytes FROM rejected_bodies').get()).toEqual({ bytes: Buffer.byteLength('<html>été</html>') });
    } finally {
      archive.remove();
    }
  });
});

describe("a list's stored incident JSON", () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  const incidents = () => [
    one(rawIncident({ id: 1, title: 'Files fail to upload', status: 'resolved', notes: [] })),
    one(rawIncident({ id: 2, title: 'Messages are delayed', notes: [{ body: '<p>Looking &amp; fixing</p>', date_created: '2026-09-30T10:00:00Z' }] })),
  ];

  it('is what a page reads, in one statement, while the incident is at the revision it was written for', async () => {
    await applyObserved(archive.store, incidents());
    // The real connection, recording the statements the page runs.
    const statements: string[] = [];
    const recording = Object.create(archive.connection, {
      rows: { value: (text: string, params: never[]) => (statements.push(text), archive.connection.rows(text, params)) },
    }) as typeof archive.connection;
    // Marked where it is kept: a page that built the texts from the rows would not show the mark.
    archive.sqlite.exec(`UPDATE incident_listed_json SET json_head = replace(json_head, '"title":"', '"title":"(stored) ')`);
    const listed = await createSqliteStore(recording).listIncidentsJson({}, null, 10);
    expect(listed.map((item) => (JSON.parse(item.json) as { title: string }).title)).toEqual([
      '(stored) Messages are delayed',
      '(stored) Files fail to upload',
    ]);
    // One statement for the page (no search, no count).
    expect(statements).toHaveLength(1);
  });

  it('is passed over for an incident written since without it, or never written, and the page shows the incident as it is', async () => {
    await applyObserved(archive.store, incidents());
    const before = new Map((await archive.store.listIncidentsJson({}, null, 10)).map((item) => [JSON.parse(item.json).id as string, JSON.parse(item.json)]));
    // An older Worker, still running during a deploy, edits incident 2 without storing its text;
    // incident 1's text is lost.
    archive.sqlite.exec(`UPDATE incidents SET title = 'Edited by other code', revision = revision + 1 WHERE id = '2'`);
    archive.sqlite.exec(`DELETE FROM incident_listed_json WHERE incident_pk = (SELECT pk FROM incidents WHERE id = '1')`);
    const after = new Map((await archive.store.listIncidentsJson({}, null, 10)).map((item) => [JSON.parse(item.json).id as string, JSON.parse(item.json)]));
    expect(after.get('2')).toEqual({ ...before.get('2'), title: 'Edited by other code', revision: before.get('2').revision + 1 });
    expect(after.get('1')).toEqual(before.get('1'));
  });

  it('is written for every archived incident by the migration that adds it', async () => {
    await applyObserved(archive.store, incidents());
    const written = await archive.store.listIncidentsJson({}, null, 10);
    // The migrations as they stood before 0022, applied to a real file holding the same incidents and notes.
    const { dir, old } = archiveMigratedBefore('0022');
    expect(old.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'incident_listed_json'").get()).toEqual({ n: 0 });
    old.prepare('ATTACH DATABASE ? AS current').run(archive.path);
    old.exec('INSERT INTO incidents SELECT * FROM current.incidents; INSERT INTO notes SELECT * FROM current.notes');
    old.exec('DETACH DATABASE current');
    old.close();

    const upgraded = openTempArchive(dir); // migrates to the current schema
    try {
      expect(await upgraded.store.listIncidentsJson({}, null, 10)).toEqual(written);
    } finally {
      upgraded.remove();
    }
  });
});

/**
 * An archive file in a new folder migrated only as far as the migrations before `tag` took it, as
 * an older release left it; openTempArchive(dir) then upgrades it to the current schema.
 */
function archiveMigratedBefore(tag: string): { dir: string; old: Database.Database } {
  const dir = tempDir();
  const oldMigrations = join(dir, 'drizzle');
  cpSync(MIGRATIONS_DIR, oldMigrations, { recursive: true });
  const journalPath = join(oldMigrations, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter((e) => e.tag < tag);
  writeFileSync(journalPath, JSON.stringify(journal));
  const old = new Database(join(dir, 'archive.db'));
  migrate(drizzle(old), { migrationsFolder: oldMigrations });
  return { dir, old };
}
