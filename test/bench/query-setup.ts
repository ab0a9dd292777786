/**
 * The query benchmark's world: a large archive seeded directly in SQL (checked against the real
 * store), served by the real Hono app over loopback next to a bare constant route for the baseline.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { Poller } from '../../src/app/poller.ts';
import { planPoll } from '../../src/core/diff.ts';
import type { Incident } from '../../src/core/incident.ts';
import { toFtsQuery } from '../../src/core/search-query.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { expectBench, silentLogger } from './harness.ts';
import { firstDifference, seedDirect, seedThroughStore } from './seed.ts';
import { timed } from './stats.ts';
import { COMMON_WORD, DAY_MS, RARE_WORD, syntheticIncidents, toIncidents, YEAR_MS } from './synthetic.ts';

/** Same length as /api/incidents, so both requests carry the same bytes of path. */
export const BASELINE_PATH = '/api/constants';

/** Incidents seeded both ways and compared row for row. */
const EQUIVALENCE_SAMPLE = 300;

export type QueryWorld = {
  archive: TempArchive;
  url: string;
  nowMs: number;
  seedMs: number;
  /** Incidents whose notes or title match, by word, counted in the full-text index. */
  ftsMatches: Map<string, number>;
  close(): Promise<void>;
};

/** The HTTP API never polls in this benchmark; the admin route that would is not called. */
const idlePoller: Poller = { pollOnce: async () => ({ status: 'skipped', reason: 'another poll is running' }) };

export async function setUpQueryWorld(count: number): Promise<QueryWorld> {
  const nowMs = Date.now();
  const { archive, seedMs } = await seedQueryArchive(count, nowMs);
  let server: Server | undefined;
  try {
    const app = createApp(await buildAppDeps(archive.store, { poller: idlePoller, logger: silentLogger, startedAt: nowMs }));
    const baseline = new Hono().get(BASELINE_PATH, (c) => c.json({ ok: true, incidents: [], response_metadata: { next_cursor: '' } }));
    // One server for both, so the baseline pays the same sockets, parsing and dispatch as the API.
    const listening = serve({
      fetch: (request, env) => (new URL(request.url).pathname === BASELINE_PATH ? baseline.fetch(request) : app.fetch(request, env)),
      port: 0,
      hostname: '127.0.0.1',
    }) as Server;
    server = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('listening', resolve);
      listening.once('error', reject);
    });
    const { port } = listening.address() as AddressInfo;

    return {
      archive,
      url: `http://127.0.0.1:${port}`,
      nowMs,
      seedMs,
      ftsMatches: new Map([COMMON_WORD, RARE_WORD, 'upload'].map((word) => [word, ftsCount(archive, word)])),
      async close() {
        await new Promise<void>((resolve) => {
          listening.close(() => resolve());
          listening.closeAllConnections();
        });
        archive.remove();
      },
    };
  } catch (error) {
    server?.closeAllConnections();
    server?.close();
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
    await seedThroughStore(createSqliteStore(viaStore.db), incidents, nowMs, incidents.length);
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
