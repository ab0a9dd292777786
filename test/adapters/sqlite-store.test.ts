import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planPoll } from '../../src/core/diff.ts';
import { RevisionConflictError } from '../../src/core/errors.ts';
import { isOngoing, type Incident } from '../../src/core/incident.ts';
import type { PollRun, Store } from '../../src/core/ports.ts';
import { toFtsQuery } from '../../src/core/search-query.ts';
import { one, rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { MIGRATIONS_DIR } from '../../src/entry/open-sqlite.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
let runCounter = 0;

function run(outcome: PollRun['outcome'], startedAt = T0): PollRun {
  return { id: `run-${++runCounter}`, startedAt, finishedAt: startedAt + 5, outcome, sources: [], changes: {} };
}

async function applyObserved(store: Store, observed: Incident[], now = T0, backfill = false) {
  const archived = await store.loadIncidents(observed.map((i) => i.id));
  const plan = planPoll({ observed, archived, now, backfill });
  await store.applyPoll({ deliveries: [], run: run('ok', now), plan, seenIds: observed.map((i) => i.id), seenBefore: Number.MAX_SAFE_INTEGER, rejected: [], markSeeded: true });
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

  it('keeps every version of an incident', async () => {
    await applyObserved(archive.store, [one(rawIncident())]);
    await applyObserved(archive.store, [one(rawIncident({ title: 'Edited title' }))], T0 + 60_000);
    const versions = archive.sqlite.prepare('SELECT revision, snapshot_json FROM incident_versions ORDER BY revision').all() as {
      revision: number;
      snapshot_json: string;
    }[];
    expect(versions.map((v) => [v.revision, JSON.parse(v.snapshot_json).title])).toEqual([
      [1, 'Free Plan Customers Are Experiencing Message Failures'],
      [2, 'Edited title'],
    ]);
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

    const edited = { ...base, status: 'resolved', notes: [base.notes[0]!, { ...base.notes[1]!, body: '<p>Zeppelin traffic</p>' }] };
    await applyObserved(archive.store, [one(edited)], T0 + 120_000);
    expect((await archive.store.listIncidents({ q: toFtsQuery('zeppelin')! }, null, 10)).map((r) => r.id)).toEqual(['1579']);
    expect((await archive.store.listIncidents({ q: toFtsQuery('loop')! }, null, 10))).toEqual([]);
  });

  it('refuses a plan computed against a revision that moved, writing nothing', async () => {
    const stale = await archive.store.loadIncidents(['1579']);
    await applyObserved(archive.store, [one(rawIncident())]);
    const plan = planPoll({ observed: [one(rawIncident())], archived: stale, now: T0, backfill: false });
    await expect(
      archive.store.applyPoll({ deliveries: [], run: run('ok'), plan, seenIds: [], seenBefore: Number.MAX_SAFE_INTEGER, rejected: [], markSeeded: false }),
    ).rejects.toBeInstanceOf(RevisionConflictError);
    // Nothing of the refused piece stays: not its run, not its version, not its event.
    expect(archive.sqlite.prepare('SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM poll_runs) AS runs, (SELECT count(*) FROM incident_versions) AS versions').get()).toEqual({ events: 1, runs: 1, versions: 1 });
  });

  it('writes all of a poll or none of it when the disk fills up', async () => {
    await applyObserved(archive.store, [one(rawIncident({ id: 1 }))]);
    const pages = (archive.sqlite.pragma('page_count', { simple: true }) as number) + 1;
    archive.sqlite.pragma(`max_page_count = ${pages}`);
    const big = Array.from({ length: 50 }, (_, i) =>
      one(rawIncident({ id: 100 + i, notes: [{ body: 'x'.repeat(4000), date_created: '2026-10-01T05:39:35-07:00' }] })),
    );
    await expect(applyObserved(archive.store, big)).rejects.toThrow(/full/i);
    const counts = archive.sqlite
      .prepare('SELECT (SELECT count(*) FROM incidents) AS incidents, (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM poll_runs) AS runs')
      .get();
    expect(counts).toEqual({ incidents: 1, events: 1, runs: 1 });
  });

  it('lists every service name an incident ever used, each once, in code-unit order, at most the limit', async () => {
    await applyObserved(archive.store, [
      one(rawIncident({ id: 1, services: ['Search', 'Files'] })),
      one(rawIncident({ id: 2, services: ['Files', 'Old Name'] })),
      one(rawIncident({ id: 3, status: 'resolved', services: ['Calls'] })),
    ]);
    expect(await archive.store.knownServices(100)).toEqual(['Calls', 'Files', 'Old Name', 'Search']);
    // The bound: a feed that invents names cannot grow the list (and its cache) past it.
    expect(await archive.store.knownServices(2)).toEqual(['Calls', 'Files']);
  });

  it('gives a lease to one holder at a time and frees it when it expires or is released', async () => {
    const { store } = archive;
    expect(await store.tryAcquireLease('poll', 'a', T0, 1000)).toBe(true);
    expect(await store.tryAcquireLease('poll', 'b', T0 + 10, 1000)).toBe(false);
    expect(await store.tryAcquireLease('poll', 'a', T0 + 20, 1000)).toBe(true); // renewal by the holder
    expect(await store.tryAcquireLease('poll', 'b', T0 + 1020, 1000)).toBe(true); // a's expired
    await store.releaseLease('poll', 'a'); // not a's to release any more
    expect(await store.tryAcquireLease('poll', 'a', T0 + 1030, 1000)).toBe(false);
    await store.releaseLease('poll', 'b');
    expect(await store.tryAcquireLease('poll', 'a', T0 + 1040, 1000)).toBe(true);
  });

  it('counts consecutive failures since the last success', async () => {
    const { store } = archive;
    expect(await store.feedHealth()).toEqual({ lastRun: null, lastSuccessAt: null, consecutiveFailures: 0 });
    await store.recordPollRun(run('failed', T0), []);
    await store.recordPollRun(run('ok', T0 + 60_000), []);
    await store.recordPollRun(run('failed', T0 + 120_000), []);
    await store.recordPollRun(run('failed', T0 + 180_000), []);
    const health = await store.feedHealth();
    expect(health).toMatchObject({ lastSuccessAt: T0 + 60_000, consecutiveFailures: 2 });
    expect(health.lastRun?.startedAt).toBe(T0 + 180_000);
  });

  it('keeps rejected payloads raw for inspection, one copy per distinct body', async () => {
    const page = { source: 'v2/current' as const, url: 'http://x/api', body: '<html>maintenance</html>', error: 'invalid JSON', sha256: 'a'.repeat(64) };
    const first = run('failed', T0);
    const second = run('failed', T0 + 60_000);
    await archive.store.recordPollRun(first, [page]);
    await archive.store.recordPollRun(second, [page, { ...page, source: 'v2/history' }]);
    const shown = await archive.store.getPollRun(first.id);
    expect(shown?.rejected).toEqual([
      {
        source: 'v2/current',
        url: 'http://x/api',
        error: 'invalid JSON',
        sha256: page.sha256,
        receivedAt: T0,
        body: { text: '<html>maintenance</html>', seenCount: 3, firstSeenAt: T0, lastSeenAt: T0 + 60_000 },
      },
    ]);
    expect((await archive.store.getPollRun(second.id))?.rejected.map((r) => r.source)).toEqual(['v2/current', 'v2/history']);
  });

  describe('queries', () => {
    beforeEach(async () => {
      await applyObserved(archive.store, [
        one(rawIncident({ id: 1, title: 'Files fail to upload', services: ['Files'], date_created: '2026-07-01T10:00:00-07:00', date_updated: '2026-07-02T10:00:00-07:00', status: 'resolved' })),
        one(rawIncident({ id: 2, title: 'Huddles drop', services: ['Huddles', 'Files'], type: 'outage', date_created: '2026-08-01T10:00:00-07:00', date_updated: '2026-08-02T10:00:00-07:00' })),
        one(
          rawIncident({
            id: 3,
            title: 'Search is slow',
            services: [],
            date_created: '2026-09-01T10:00:00-07:00',
            date_updated: '2026-09-02T10:00:00-07:00',
            notes: [{ body: '<p>Uploading&nbsp;attachments is delayed</p>', date_created: '2026-09-01T10:00:00-07:00' }],
          }),
        ),
      ]);
    });
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

    it('lists newest first and pages by position', async () => {
      const { store } = archive;
      expect(ids(await store.listIncidents({}, null, 10))).toEqual(['3', '2', '1']);
      const [, two] = await store.listIncidents({}, null, 2);
      expect(two?.sortKey).toBe((Date.parse('2026-08-01T10:00:00-07:00') / 1000) * 1_000_000);
      expect(ids(await store.listIncidents({}, { sortKey: two!.sortKey }, 10))).toEqual(['1']);
      expect(ids(await store.listIncidents({ q: toFtsQuery('upload')! }, { sortKey: two!.sortKey }, 10))).toEqual(['1']);
    });

    it('filters by service, type, status and time', async () => {
      const { store } = archive;
      expect(ids(await store.listIncidents({ services: ['Files'] }, null, 10))).toEqual(['2', '1']);
      expect(ids(await store.listIncidents({ types: ['outage'] }, null, 10))).toEqual(['2']);
      expect(ids(await store.listIncidents({ statuses: ['resolved'] }, null, 10))).toEqual(['1']);
      expect(ids(await store.listIncidents({ sinceMs: Date.parse('2026-07-15T00:00:00Z'), untilMs: Date.parse('2026-08-15T00:00:00Z') }, null, 10))).toEqual(['2']);
    });

    it('finds words in titles and in note bodies stripped of HTML, with stemming', async () => {
      const { store } = archive;
      expect(ids(await store.listIncidents({ q: toFtsQuery('upload')! }, null, 10))).toEqual(['3', '1']);
      expect(ids(await store.listIncidents({ q: toFtsQuery('attachments delayed')! }, null, 10))).toEqual(['3']);
      expect(ids(await store.listIncidents({ q: toFtsQuery('nbsp')! }, null, 10))).toEqual([]);
      expect(ids(await store.listIncidents({ q: toFtsQuery('upload')!, services: ['Files'] }, null, 10))).toEqual(['1']);
    });

    it('keeps the search index in step when a title changes', async () => {
      await applyObserved(archive.store, [one(rawIncident({ id: 2, title: 'Calls drop', services: ['Huddles', 'Files'], type: 'outage', date_created: '2026-08-01T10:00:00-07:00', date_updated: '2026-08-02T10:00:00-07:00' }))], T0 + 1);
      expect(ids(await archive.store.listIncidents({ q: toFtsQuery('huddles')! }, null, 10))).toEqual([]);
      expect(ids(await archive.store.listIncidents({ q: toFtsQuery('calls')! }, null, 10))).toEqual(['2']);
    });

    it('orders incidents created in the same instant by arrival, each once across pages', async () => {
      const same = '2026-09-05T10:00:00-07:00';
      await applyObserved(archive.store, [4, 5, 6].map((id) => one(rawIncident({ id, date_created: same, date_updated: same }))), T0 + 1);
      const first = await archive.store.listIncidents({}, null, 2);
      const rest = await archive.store.listIncidents({}, { sortKey: first.at(-1)!.sortKey }, 10);
      expect([...ids(first), ...ids(rest)]).toEqual(['6', '5', '4', '3', '2', '1']);
      expect(new Set([...first, ...rest].map((r) => r.sortKey)).size).toBe(6);
    });

    it('moves an incident whose date_created is re-stamped, and still finds it by its words', async () => {
      await applyObserved(
        archive.store,
        [one(rawIncident({ id: 1, title: 'Files fail to upload', services: ['Files'], date_created: '2026-09-30T10:00:00-07:00', date_updated: '2026-09-30T10:00:00-07:00', status: 'resolved' }))],
        T0 + 1,
      );
      expect(ids(await archive.store.listIncidents({}, null, 10))).toEqual(['1', '3', '2']);
      expect(ids(await archive.store.listIncidents({ q: toFtsQuery('upload')! }, null, 10))).toEqual(['1', '3']);
      const fts = archive.sqlite.prepare('SELECT count(*) AS n FROM incidents_fts').get();
      expect(fts).toEqual({ n: 3 });
    });

    it('lists each incident with its note count and latest note only', async () => {
      const at = '2026-09-10T10:00:00-07:00';
      const notes = [
        { body: 'older', date_created: '2026-09-10T09:00:00-07:00' },
        { body: 'first', date_created: at },
        { body: 'second, same second', date_created: at },
      ];
      await applyObserved(archive.store, [one(rawIncident({ id: 9, date_created: '2026-09-10T09:00:00-07:00', notes }))], T0 + 1);
      const [listed] = await archive.store.listIncidents({ q: toFtsQuery('second')! }, null, 10);
      expect(listed).toMatchObject({ id: '9', noteCount: 3, latestNote: { body: 'second, same second' } });
      expect(listed).not.toHaveProperty('notes');
    });

    it('counts as ongoing exactly what isOngoing says, whatever the status is called', async () => {
      const statuses = ['canceled', 'completed', 'scheduled', 'investigating'];
      await applyObserved(archive.store, statuses.map((status, i) => one(rawIncident({ id: 20 + i, status }))), T0 + 1);
      const ongoing = ids(await archive.store.ongoingIncidents()).filter((id) => Number(id) >= 20).sort();
      expect(ongoing).toEqual(['22', '23']);
      expect(statuses.filter((status) => isOngoing(status))).toEqual(['scheduled', 'investigating']);
    });

    it('lists the most recently updated first, by service, however old their creation', async () => {
      // 1 was created first of all, but updated last: it leads, ahead of newer creations.
      await applyObserved(
        archive.store,
        [one(rawIncident({ id: 1, title: 'Files fail to upload', services: ['Files'], date_created: '2026-07-01T10:00:00-07:00', date_updated: '2026-09-20T10:00:00-07:00', status: 'resolved' }))],
        T0 + 1,
      );
      expect(ids(await archive.store.recentlyUpdated({}, 10))).toEqual(['1', '3', '2']);
      expect(ids(await archive.store.recentlyUpdated({ services: ['Huddles'] }, 10))).toEqual(['2']);
      expect(ids(await archive.store.recentlyUpdated({}, 2))).toEqual(['1', '3']);
    });

    it('lists ongoing incidents and those updated since a time', async () => {
      expect(ids(await archive.store.ongoingIncidents()).sort()).toEqual(['2', '3']);
      expect(ids(await archive.store.incidentsUpdatedSince(Date.parse('2026-08-01T00:00:00Z'), 10))).toEqual(['3', '2']);
    });
  });
});

describe('time filters at sub-second edges', () => {
  it('keeps since inclusive and until exclusive at millisecond precision', async () => {
    const archive = openTempArchive();
    try {
      const at = (iso: string) => one(rawIncident({ id: iso.slice(-8, -1).replace(/\D/g, ''), date_created: iso, date_updated: iso, notes: [] }));
      await applyObserved(archive.store, [at('2026-09-01T10:00:00.250Z'), at('2026-09-01T10:00:00.750Z'), at('2026-09-01T10:00:01.000Z')]);
      const ids = async (sinceMs?: number, untilMs?: number) => (await archive.store.listIncidents({ sinceMs, untilMs }, null, 10)).map((r) => r.dateCreated.raw);
      const t = Date.parse('2026-09-01T10:00:00.750Z');
      expect(await ids(t)).toEqual(['2026-09-01T10:00:01.000Z', '2026-09-01T10:00:00.750Z']);
      expect(await ids(undefined, t)).toEqual(['2026-09-01T10:00:00.250Z']);
      expect(await ids(undefined, t + 250)).toEqual(['2026-09-01T10:00:00.750Z', '2026-09-01T10:00:00.250Z']);
    } finally {
      archive.remove();
    }
  });
});

describe('upgrading an archive from before refused payloads were deduplicated', () => {
  it('keeps each refused payload visible with its poll run', async () => {
    // The migrations as they stood before 0004, applied to a real file, with a refused payload in it.
    const dir = tempDir();
    const oldMigrations = join(dir, 'drizzle');
    cpSync(MIGRATIONS_DIR, oldMigrations, { recursive: true });
    const journalPath = join(oldMigrations, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    journal.entries = journal.entries.filter((e) => e.tag < '0004');
    writeFileSync(journalPath, JSON.stringify(journal));
    const path = join(dir, 'archive.db');
    const old = new Database(path);
    migrate(drizzle(old), { migrationsFolder: oldMigrations });
    old.prepare(`INSERT INTO poll_runs (id, started_ms, finished_ms, outcome, sources_json, changes_json, event_count) VALUES ('r1', ?, ?, 'failed', '[]', '{}', 0)`).run(T0, T0 + 5);
    old.prepare(`INSERT INTO rejected_payloads (poll_run_id, source, url, body, error, received_ms) VALUES ('r1', 'v2/history', 'http://x/api', '<html>été</html>', 'invalid JSON', ?)`).run(T0);
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
