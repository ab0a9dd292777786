/**
 * Purging a source on a real SQLite file: an archive larger than one request deletes is answered
 * "deleting" with what is left, and retention's next run deletes the rest; no row of it is left
 * behind in any table, the search index included; and every delete of a step seeks an index.
 * What a purge removes and keeps, read through the ports, is the SourceStore contract
 * (test/contracts/sources.contract.ts), on Node and on D1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { PURGE_SQL } from '../../src/adapters/sqlite-source-purge.ts';
import { createPruner } from '../../src/app/retention.ts';
import { PURGE_BATCH_ROWS, PURGE_STEPS_PER_REQUEST } from '../../src/app/source-purge.ts';
import { createSourceService } from '../../src/app/sources.ts';
import { FeedFetchError } from '../../src/core/errors.ts';
import { DEFAULT_RETENTION } from '../../src/core/retention.ts';
import { queryPlan } from '../helpers/query-plan.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { logLines } from '../helpers/log-lines.ts';

const NOW = Date.UTC(2026, 10, 27, 12);
const SECOND_MS = 1000;

/** A request deletes at most this many incidents; the archive below holds more. */
const PER_REQUEST = PURGE_BATCH_ROWS * PURGE_STEPS_PER_REQUEST;
const LEFT_OVER = 123;

describe('purging a source larger than one request deletes', () => {
  let archive: TempArchive;
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const count = (sql: string, ...params: unknown[]) => (archive.sqlite.prepare(`SELECT count(*) AS n FROM ${sql}`).get(...params) as { n: number }).n;

  beforeEach(() => {
    archive = openTempArchive();
    logs.length = 0;
  });
  afterEach(() => archive.remove());

  /** `n` incidents of `source`, each with a service, a note, a version, a search row and an event. */
  function archiveOf(source: string, n: number, firstSortKey: number) {
    archive.sqlite
      .prepare(
        `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
         INSERT INTO incidents (id, sort_key, title, type, status, url, services_json, date_created, date_updated,
           created_ms, updated_ms, resolved_ms, first_seen_ms, last_seen_ms, revision)
         SELECT ? || i, ? + i, 'Database errors', 'incident', 'active', 'https://status.example.com', '["API"]',
           '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z', 0, 0, NULL, 0, 0, 1 FROM k`,
      )
      .run(n, source === 'main' ? '' : `${source}:`, firstSortKey);
    const of = source === 'main' ? "id NOT LIKE '%:%'" : `id >= '${source}:' AND id < '${source};'`;
    archive.sqlite.exec(`
      INSERT INTO incident_services (incident_pk, service, sort_key) SELECT pk, 'API', sort_key FROM incidents WHERE ${of};
      INSERT INTO notes (incident_id, key, date_created, created_ms, seq, body, text, first_seen_ms, changed_ms)
        SELECT id, 'n-0', '2026-10-01T00:00:00Z', 0, 0, '<p>Database errors</p>', 'Database errors', 0, 0 FROM incidents WHERE ${of};
      INSERT INTO incident_versions (incident_id, revision, snapshot_json, recorded_ms) SELECT id, 1, '{}', 0 FROM incidents WHERE ${of};
      INSERT INTO incidents_fts (rowid, title, notes) SELECT sort_key, title, 'Database errors' FROM incidents WHERE ${of};
      INSERT INTO events (id, type, incident_id, revision, occurred_ms, detected_ms, backfill, data_json)
        SELECT id || '.r1.created', 'incident.created', id, 1, 0, 0, 0, '{}' FROM incidents WHERE ${of};`);
  }

  /** Every row of any table that belongs to the source: none is ever left behind. */
  const rowsOf = (source: string) => {
    const range = [`${source}:`, `${source};`];
    return {
      incidents: count('incidents WHERE id >= ? AND id < ?', ...range),
      services: count('incident_services WHERE incident_pk NOT IN (SELECT pk FROM incidents)'),
      notes: count('notes WHERE incident_id >= ? AND incident_id < ?', ...range),
      versions: count('incident_versions WHERE incident_id >= ? AND incident_id < ?', ...range),
      search: count('incidents_fts WHERE rowid NOT IN (SELECT sort_key FROM incidents)'),
      events: count('events WHERE incident_id >= ? AND incident_id < ?', ...range),
      sources: count('sources WHERE id = ?', source),
    };
  };

  it('answers "deleting" with what is left, and the next retention run deletes the rest, leaving no row behind', async () => {
    const { store } = archive;
    const sources = createSourceService({
      store,
      openPage: () => ({
        get: () => Promise.reject(new FeedFetchError('not read in this test', 'network', false)),
      }),
      checkTarget: () => ({ ok: true }),
      clock: { now: () => NOW },
      newId: () => 'src_unused',
      maxSources: 10,
      mainFeedUrl: 'https://status.vendor.example',
    });
    await store.addSource({ id: 'src_big', kind: 'statuspage', name: 'Big', url: 'https://big.example.com', createdAt: NOW }, 10);
    await store.addSource({ id: 'src_bigger', kind: 'statuspage', name: 'Bigger', url: 'https://bigger.example.com', createdAt: NOW }, 10);
    archiveOf('src_big', PER_REQUEST + LEFT_OVER, 1_000_000 * SECOND_MS);
    archiveOf('src_bigger', 40, 2_000_000 * SECOND_MS);
    archiveOf('main', 30, 3_000_000 * SECOND_MS);
    const untouched = () => ({
      bigger: rowsOf('src_bigger'),
      mainIncidents: count("incidents WHERE id NOT LIKE '%:%'"),
      mainEvents: count("events WHERE incident_id NOT LIKE '%:%'"),
    });
    const before = untouched();
    expect(before).toMatchObject({ bigger: { incidents: 40, events: 40 }, mainIncidents: 30, mainEvents: 30 });

    const started = Date.now();
    expect(await sources.purge('src_big')).toEqual({ archive: 'deleting', left: { incidents: LEFT_OVER, events: LEFT_OVER } });
    // Ten short transactions, not one long one: each of them well under the time a request may take.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await sources.list()).map((s) => s.id)).toEqual(['main', 'src_bigger']);
    expect(await store.purgingSources()).toEqual(['src_big']);

    const counts = await createPruner({ store, logger, settings: DEFAULT_RETENTION, batchRows: 50 }).pruneExpired(NOW);

    // Each incident's row, service, note, version and event, and the source's own row.
    expect(counts.purgedSourceRows).toBe(LEFT_OVER * 5 + 1);
    expect(rowsOf('src_big')).toEqual({ incidents: 0, services: 0, notes: 0, versions: 0, search: 0, events: 0, sources: 0 });
    expect(untouched()).toEqual(before);
    expect(await store.purgingSources()).toEqual([]);
    expect(logLines(logs, 'pruned expired rows')).toMatchObject([{ purgedSourceRows: LEFT_OVER * 5 + 1 }]);
    // The search finds the other source's and the main feed's incidents, none of the purged one's.
    expect((await store.countIncidents({ q: 'database' }, 1000)).count).toBe(70);
  });

  describe('query plans', () => {
    const plan = (text: string) => queryPlan(archive.sqlite, text);

    it.each(Object.entries(PURGE_SQL))('%s scans no table', (_name, text) => {
      const details = plan(text);
      // `SCAN x` reads a whole table (or index), and a temporary B-tree sorts every candidate row.
      // The search index is reached by rowid, which FTS5 reports as a scan of its virtual table by index.
      expect(details.filter((d) => (/^SCAN /.test(d) && !/^SCAN incidents_fts VIRTUAL TABLE INDEX 0:=/.test(d)) || /TEMP B-TREE/.test(d))).toEqual([]);
    });
  });
});
