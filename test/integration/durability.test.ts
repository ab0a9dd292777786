/**
 * Restarts, two processes on one database file, and SIGKILL in the middle of a poll: the archive
 * stays whole, nothing is lost, and no change is recorded twice.
 * CRASH_ROUNDS=100 npx vitest run test/integration/durability.test.ts runs the long version.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY_PIECE_INCIDENTS } from '../../src/app/poller.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { startTestService, startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const INCIDENTS = 1200;

function feed(round: number): RawIncident[] {
  return Array.from({ length: INCIDENTS }, (_, i) =>
    rawIncident({
      id: 5000 + i,
      title: `Incident ${i} (version ${round})`,
      status: 'resolved',
      date_created: '2026-10-01T05:00:00-07:00',
      date_updated: '2026-10-01T06:00:00-07:00',
      notes: [{ body: `<p>Note of incident ${i}. ${'Details. '.repeat(20)}</p>`, date_created: '2026-10-01T05:00:00-07:00' }],
    }),
  );
}

const EMPTY_ARCHIVE = { integrity: 'ok', titles: new Set<string>(), incidents: 0, events: [], duplicateEventIds: 0 };

function readArchive(path: string) {
  // Killed before it created the file: an empty archive.
  if (!existsSync(path)) return EMPTY_ARCHIVE;
  // Read-write, as the next process would open it: a read-only connection cannot recover the
  // write-ahead log a killed writer left behind.
  const db = new Database(path, { fileMustExist: true });
  try {
    // Killed before its migrations committed (they run in one transaction): no tables yet.
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'incidents'").get()) {
      return { ...EMPTY_ARCHIVE, integrity: db.pragma('integrity_check', { simple: true }) as string };
    }
    return {
      integrity: (db.pragma('integrity_check', { simple: true }) as string),
      titles: new Set((db.prepare('SELECT title FROM incidents').all() as { title: string }[]).map((r) => r.title.replace(/^Incident \d+ /, ''))),
      incidents: (db.prepare('SELECT count(*) AS n FROM incidents').get() as { n: number }).n,
      events: db.prepare("SELECT incident_id AS incident, type, data_json FROM events ORDER BY seq").all() as { incident: string; type: string; data_json: string }[],
      duplicateEventIds: (db.prepare('SELECT count(*) - count(DISTINCT id) AS n FROM events').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

describe('durability', () => {
  let vendor: TestVendor;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(() => vendor.close());

  it('survives a restart: the archive is kept and nothing is recorded again', async () => {
    const dir = tempDir();
    await vendor.setIncidents(feed(0).slice(0, 5));
    const first = await startTestService(vendor.url, { dir });
    expect((await first.poll()).events).toHaveLength(5);
    await first.close();

    const second = await startTestService(vendor.url, { dir });
    try {
      const again = await second.poll();
      expect(again).toMatchObject({ outcome: 'ok', events: [] });
      expect((await second.get('/api/incidents')).body.incidents).toHaveLength(5);
      expect((await second.get('/healthz')).body.status).toBe('ok');
    } finally {
      await second.close();
    }
  });

  it(`loses nothing and duplicates nothing when a poll is killed mid-way (${CRASH_ROUNDS} SIGKILLs)`, async () => {
    const dir = tempDir();
    const database = join(dir, 'archive.db');
    const env = { DATABASE_PATH: database, STATUS_URL: vendor.url, LOG_LEVEL: 'warn' };
    let interrupted = 0;
    for (let round = 1; round <= CRASH_ROUNDS; round++) {
      await vendor.setIncidents(feed(round));
      const { child, done } = spawnCli(['poll'], env);
      // Startup takes ~0.5 s and writing 1,200 incidents about as long again: kill somewhere in there.
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1500));
      child.kill('SIGKILL');
      const result = await done;
      const after = readArchive(database);
      expect(after.integrity).toBe('ok');
      // A poll writes at most POLL_MAX_INCIDENT_CHANGES incidents, in atomic pieces: a kill leaves
      // whole pieces, each incident at one version or another, never a version that did not exist.
      expect(after.incidents % APPLY_PIECE_INCIDENTS).toBe(0);
      const versions = new Set(Array.from({ length: round }, (_, i) => `(version ${i + 1})`));
      for (const title of after.titles) expect(versions).toContain(title);
      // Killed before it exited: the poll was interrupted (while reading or while writing).
      if (result.signal === 'SIGKILL') interrupted++;
    }

    // Polls from fresh processes catch up with whatever the killed ones did not commit, a budget
    // of incidents per poll at a time.
    for (let poll = 1; ; poll++) {
      const final = await runCli(['poll', '--json'], env);
      expect(final.code, final.stdout + final.stderr).toBe(0);
      const result = JSON.parse(final.stdout) as { status: string; run: { pendingIncidents?: number } };
      expect(result.status).toBe('ok');
      if (!result.run.pendingIncidents) break;
      expect(poll).toBeLessThan(INCIDENTS);
    }
    const archive = readArchive(database);
    expect(archive.integrity).toBe('ok');
    expect(archive.incidents).toBe(INCIDENTS);
    expect([...archive.titles]).toEqual([`(version ${CRASH_ROUNDS})`]);
    expect(archive.duplicateEventIds).toBe(0);

    // Each incident's history is one unbroken chain: created, then title changes whose "from" is
    // the previous "to", ending at the last version. A lost or doubled change would break it.
    const byIncident = new Map<string, { type: string; data_json: string }[]>();
    for (const e of archive.events) byIncident.set(e.incident, [...(byIncident.get(e.incident) ?? []), e]);
    expect(byIncident.size).toBe(INCIDENTS);
    for (const [, events] of byIncident) {
      expect(events[0]?.type).toBe('incident.created');
      let title = JSON.parse(events[0]!.data_json).incident.title as string;
      for (const e of events.slice(1)) {
        expect(e.type).toBe('incident.updated');
        const change = JSON.parse(e.data_json).changes.title as { from: string; to: string };
        expect(change.from).toBe(title);
        title = change.to;
      }
      expect(title).toMatch(new RegExp(`\\(version ${CRASH_ROUNDS}\\)$`));
    }
    expect(interrupted).toBeGreaterThan(0);
  }, 120_000);

  it('lets only one of two processes on one database file poll at a time', async () => {
    const dir = tempDir();
    const env = { DATABASE_PATH: join(dir, 'archive.db'), STATUS_URL: vendor.url, LOG_LEVEL: 'warn' };
    await vendor.setIncidents(feed(0).slice(0, 50));
    await runCli(['migrate'], env);
    // A slow history keeps the first poll going while the second starts.
    await vendor.fault({ target: 'v2/history', kind: 'slow', delayMs: 2500, times: 1 });
    const a = spawnCli(['poll', '--json'], env);
    await new Promise((r) => setTimeout(r, 1200));
    const b = spawnCli(['poll', '--json'], env);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    await vendor.clearFaults();
    const statuses = [JSON.parse(ra.stdout).status, JSON.parse(rb.stdout).status].sort();
    expect(statuses).toEqual(['ok', 'skipped']);
    const archive = readArchive(env.DATABASE_PATH);
    expect(archive.events).toHaveLength(50);
    expect(archive.duplicateEventIds).toBe(0);
  }, 30_000);
});
