/**
 * `statuswatch backup FILE` while `statuswatch serve` polls every second and another connection
 * keeps writing: the copy is a whole SQLite file holding every row committed before the backup
 * began, with no gap (one snapshot), and a FILE that exists already is never touched.
 */
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { serveEnv, spawnServe, type ServeProcess } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

/** Enough rows that the copy takes a while: 20 MB, about 5,000 pages. */
const SEED_ROWS = 5_000;
const ROW_BYTES = 4_096;

describe('statuswatch backup', () => {
  let vendor: TestVendor;
  let archive: TempArchive;
  let serve: ServeProcess;
  let kill: (signal: NodeJS.Signals) => Promise<unknown>;

  beforeAll(async () => {
    vendor = await startTestVendor();
    archive = openTempArchive();
    // A table of the test's own beside the archive's, filled so the copy is not instant.
    archive.sqlite.exec('CREATE TABLE backup_probe (n INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    const insert = archive.sqlite.prepare('INSERT INTO backup_probe (n, body) VALUES (?, ?)');
    archive.sqlite.transaction(() => {
      for (let n = 1; n <= SEED_ROWS; n++) insert.run(n, Buffer.alloc(ROW_BYTES, n % 256));
    })();
    const spawned = spawnServe(serveEnv(archive.path, vendor.url, { POLL_SCHEDULE: '* * * * * *', POLL_ON_START: 'true' }));
    kill = spawned.kill;
    serve = await spawned.started;
  });

  afterAll(async () => {
    await kill?.('SIGTERM');
    await vendor?.close();
    archive?.remove();
  });

  it('copies the archive while serve polls and another connection writes: whole, and holding every row committed before it', async () => {
    // serve has polled at least once: the copy must hold its poll runs.
    const pollRuns = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM poll_runs').get() as { n: number }).n;
    await expect.poll(() => pollRuns(archive.sqlite), { timeout: 20_000 }).toBeGreaterThan(0);

    // Keep writing, one row a millisecond, for as long as the backup runs.
    const insert = archive.sqlite.prepare('INSERT INTO backup_probe (n, body) VALUES (?, ?)');
    let next = SEED_ROWS + 1;
    const writer = setInterval(() => insert.run(next++, Buffer.alloc(ROW_BYTES, 7)), 1);
    const committedBefore = next - 1;
    const pollRunsBefore = pollRuns(archive.sqlite);
    const out = join(archive.dir, 'backup.db');
    let result: Awaited<ReturnType<typeof runCli>>;
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the writer is under way
      result = await runCli(['backup', out], { DATABASE_PATH: archive.path });
    } finally {
      clearInterval(writer);
    }
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^wrote .*backup\.db: \d+ pages?, \d+ bytes\n$/);
    expect(next - 1).toBeGreaterThan(committedBefore); // the writer did write during the copy
    expect(existsSync(`${out}.partial`)).toBe(false);

    const copy = new Database(out, { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const probe = copy.prepare('SELECT count(*) AS n, max(n) AS last FROM backup_probe').get() as { n: number; last: number };
      // One snapshot: rows 1..last with no gap, and at least every row committed before the backup.
      expect(probe.n).toBe(probe.last);
      expect(probe.last).toBeGreaterThanOrEqual(committedBefore);
      expect(pollRuns(copy)).toBeGreaterThanOrEqual(pollRunsBefore);
    } finally {
      copy.close();
    }
    // serve was not disturbed: it still answers.
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('refuses a FILE that exists, exit 2, leaving it as it was', async () => {
    const out = join(archive.dir, 'precious.db');
    writeFileSync(out, 'not to be overwritten');
    const result = await runCli(['backup', out], { DATABASE_PATH: archive.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the file exists already\. Fix: /);
    expect(readFileSync(out, 'utf8')).toBe('not to be overwritten');
  });

  it('says so when there is no archive to back up, or no FILE, exit 2', async () => {
    const missing = await runCli(['backup', join(archive.dir, 'x.db')], { DATABASE_PATH: join(archive.dir, 'nothing-here.db') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/DATABASE_PATH .*no archive there/);
    expect(existsSync(join(archive.dir, 'nothing-here.db'))).toBe(false);
    const noFile = await runCli(['backup'], { DATABASE_PATH: archive.path });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/FILE "": missing/);
  });
});
