/**
 * The query benchmark's world: a large archive seeded directly in SQL (checked against the real
 * store), served by the real Hono app over loopback next to a bare constant route for the baseline.
 */
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { planPoll } from '../../src/core/diff.ts';
import type { Incident } from '../../src/core/incident.ts';
import { toFtsQuery } from '../../src/core/search-query.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { expectBench } from './harness.ts';
import { firstDifference, seedDirect, seedThroughStore } from './seed.ts';
import { timed } from './stats.ts';
import { COMMON_WORD, DAY_MS, RARE_WORD, syntheticIncidents, toIncidents, YEAR_MS } from './synthetic.ts';
import { serveAppWithBaseline, type ServedApp } from './app-server.ts';

/** Same length as /api/incidents, so both requests carry the same bytes of path. */
export { BASELINE_BULK_PATH, BASELINE_PATH } from './app-server.ts';

/** Incidents seeded both ways and compared row for row. */
const EQUIVALENCE_SAMPLE = 300;

export type QueryWorld = {
  archive: TempArchive;
  url: string;
  nowMs: number;
  seedMs: number;
  /** Incidents whose notes or title match, by word, counted in the full-text index. */
  ftsMatches: Map<string, number>;
  /** Sets what the bare route at BASELINE_BULK_PATH answers. */
  setBulkBody(text: string): void;
  close(): Promise<void>;
};

/** `readBudgetMsPerSecond`: the served app's READ_BUDGET_MS_PER_SECOND (see BaselineOptions). */
export async function setUpQueryWorld(count: number, options: { readBudgetMsPerSecond?: number } = {}): Promise<QueryWorld> {
  const nowMs = Date.now();
  const { archive, seedMs } = await seedQueryArchive(count, nowMs);
  let served: ServedApp | undefined;
  let bulkBody = '';
  try {
    served = await serveAppWithBaseline(archive.connection, {
      startedAt: nowMs,
      baselineBody: { ok: true, incidents: [], response_metadata: { next_cursor: '' } },
      readBudgetMsPerSecond: options.readBudgetMsPerSecond,
      baselineBulk: () => bulkBody,
    });

    return {
      archive,
      url: served.url,
      nowMs,
      seedMs,
      ftsMatches: new Map([COMMON_WORD, RARE_WORD, 'upload'].map((word) => [word, ftsCount(archive, word)])),
      setBulkBody(text) {
        bulkBody = text;
      },
      async close() {
        await served!.close();
        archive.remove();
      },
    };
  } catch (error) {
    await served?.close();
    archive.remove();
    throw error;
  }
}

/**
 * A seeded archive, in a scope of its own: closures made here (the seeding) and the server's
 * handlers made in setUpQueryWorld would otherwise share one V8 context, which kept the whole
 * synthetic data set (~250 MB at 100k) alive during the measurements and put its GC marking
 * into request latencies.
 */
async function seedQueryArchive(count: number, nowMs: number): Promise<{ archive: TempArchive; seedMs: number }> {
  const sims = syntheticIncidents({ count, endMs: nowMs - DAY_MS, spanMs: 10 * YEAR_MS, active: 2, seed: 20 });
  // Through the vendor's wire shape and the real parser: exactly what a poll would archive.
  const incidents = toIncidents(sims);
  await checkDirectSeed(incidents.slice(-EQUIVALENCE_SAMPLE), nowMs);
  const archive = openTempArchive(tempDir('statuswatch-bench-query-'));
  try {
    const { ms: seedMs } = await timed(() => seedDirect(archive.sqlite, incidents, nowMs));
    await checkReadBack(archive, incidents, nowMs);
    return { archive, seedMs };
  } catch (error) {
    archive.remove();
    throw error;
  }
}

/** The direct seed must write exactly the rows the store writes for the same incidents. */
async function checkDirectSeed(incidents: readonly Incident[], nowMs: number): Promise<void> {
  const viaStore = openSqliteArchive(':memory:');
  const direct = openSqliteArchive(':memory:');
  try {
    await seedThroughStore(createSqliteStore(viaStore.connection), incidents, nowMs, incidents.length);
    seedDirect(direct.sqlite, incidents, nowMs);
    const differs = firstDifference(viaStore.sqlite, direct.sqlite);
    expectBench(differs === null, `the direct seed differs from store.applyPoll in: ${differs}`);
  } finally {
    viaStore.close();
    direct.close();
  }
}

/** The store reads seeded incidents back whole, and a poll that saw them again would write nothing. */
async function checkReadBack(archive: TempArchive, incidents: readonly Incident[], nowMs: number): Promise<void> {
  for (const incident of [incidents[0]!, incidents[Math.floor(incidents.length / 2)]!, incidents.at(-1)!]) {
    const stored = await archive.store.getIncident(incident.id);
    expectBench(stored?.notes.length === incident.notes.length, `store.getIncident(${incident.id}) did not return its ${incident.notes.length} notes`);
    const plan = planPoll({ observed: [incident], archived: await archive.store.loadIncidents([incident.id]), now: nowMs + 1, backfill: false });
    expectBench(plan.writes.length === 0, `a poll seeing incident ${incident.id} again would rewrite it: the seed is not what the store writes`);
  }
}

function ftsCount(archive: TempArchive, word: string): number {
  const row = archive.sqlite.prepare('SELECT count(*) AS n FROM incidents_fts WHERE incidents_fts MATCH ?').get(toFtsQuery(word)) as { n: number };
  return row.n;
}
