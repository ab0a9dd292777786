/**
 * WAL checkpoints on a thread of their own (src/entry/wal-checkpoints.ts), on real SQLite files.
 * Where a commit's pages are is read the way a power cut would leave them: a copy of the database
 * file alone, without its WAL, holds only what a checkpoint has copied into it.
 */
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { type BackgroundCheckpoints, checkpointInBackground } from '../../src/entry/wal-checkpoints.ts';
import { logLines } from '../helpers/log-lines.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const clock = { now: () => Date.now() };
const quietLogger = createConsoleLogger({ level: 'warn', format: 'json', write: () => {} });
/** More than SQLite's own checkpoint threshold (1,000 pages): an inline checkpoint would have run. */
const PAGES_PAST_THRESHOLD = 1_500;

/** How SQLite refuses a file caught half-written: a page torn (malformed), or its header. */
const TORN_COPY_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/**
 * What `read` finds in a copy of the database file alone, without its WAL. A copy taken while a
 * checkpoint writes into the file can catch it half-written, as a power cut could (SQLite would
 * then replay the WAL over it): such a copy reads as null, and the caller looks again.
 */
function inFileAlone<T>(archive: { path: string; dir: string }, read: (db: Database.Database) => T): T | null {
  const copy = join(archive.dir, `file-alone-${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(archive.path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return read(db);
  } catch (error) {
    if (TORN_COPY_CODES.has((error as { code?: string }).code ?? '')) return null;
    throw error;
  } finally {
    db.close();
  }
}

/** The tables whose rows the database file holds by itself; null for a copy caught mid-checkpoint. */
function tablesInFileAlone(archive: { path: string; dir: string }): string[] | null {
  return inFileAlone(archive, (db) =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'probe_%'").pluck().all() as string[]).sort(),
  );
}

/** One commit per page-sized row, each its own transaction, as a busy deliverer commits. */
function writePages(archive: TempArchive, table: string, pages: number): void {
  archive.sqlite.exec(`CREATE TABLE ${table} (bytes BLOB)`);
  const insert = archive.sqlite.prepare(`INSERT INTO ${table} VALUES (randomblob(4000))`);
  for (let i = 0; i < pages; i++) insert.run();
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('WAL checkpoints on a thread of their own', () => {
  const opened: { archive: TempArchive; checkpoints: BackgroundCheckpoints | null }[] = [];
  let service: TestService | null = null;
  let vendor: TestVendor | null = null;
  afterEach(async () => {
    await service?.close();
    await vendor?.close();
    service = null;
    vendor = null;
    for (const { archive, checkpoints } of opened.splice(0)) {
      await checkpoints?.stop();
      archive.remove();
    }
  });

  it('puts a lone commit into the database file within a tick, where SQLite by itself leaves it in the WAL', async () => {
    const inline = openTempArchive();
    opened.push({ archive: inline, checkpoints: null });
    const background = openTempArchive();
    const checkpoints = checkpointInBackground(background, { logger: quietLogger, clock, intervalMs: 50 });
    opened.push({ archive: background, checkpoints });

    inline.sqlite.exec('CREATE TABLE probe_inline (x)');
    background.sqlite.exec('CREATE TABLE probe_background (x)');

    expect(await waitFor(() => tablesInFileAlone(background)?.includes('probe_background') === true, 5_000)).toBe(true);
    expect(tablesInFileAlone(inline)).toEqual([]);
  });

  it('keeps checkpoints out of the writer’s commits, and the writer’s close copies what is left', async () => {
    const archive = openTempArchive();
    // A tick that does not come while the test runs: any copy into the file would be the writer's.
    const checkpoints = checkpointInBackground(archive, { logger: quietLogger, clock, intervalMs: 600_000 });
    opened.push({ archive, checkpoints });
    // The thread's first tick (none is due), then the writes.
    writePages(archive, 'probe_burst', PAGES_PAST_THRESHOLD);
    expect(tablesInFileAlone(archive)).toEqual([]);

    await checkpoints.stop();
    archive.close();
    expect(tablesInFileAlone(archive)).toEqual(['probe_burst']);
  });

  it('gives checkpoints back to the writer when the thread cannot run, and says so', async () => {
    const archive = openTempArchive();
    const logs: string[] = [];
    const logger = createConsoleLogger({ level: 'info', format: 'json', write: (line) => logs.push(line) });
    // The thread opens only a database that exists: this one does not.
    const checkpoints = checkpointInBackground({ sqlite: archive.sqlite, path: join(archive.dir, 'gone.db') }, { logger, clock, intervalMs: 50 });
    opened.push({ archive, checkpoints });

    expect(await waitFor(() => logLines(logs, 'the WAL checkpoint thread stopped; the writer checkpoints again').length === 1, 5_000)).toBe(true);
    writePages(archive, 'probe_after', PAGES_PAST_THRESHOLD);
    expect(tablesInFileAlone(archive)).toEqual(['probe_after']);
    await checkpoints.stop();
    expect(logLines(logs, 'the WAL checkpoint thread stopped; the writer checkpoints again')).toHaveLength(1);
  });

  it('serve’s archive: a poll’s record is in the database file about a second after the poll', async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url);
    const polled = await service.poll();
    expect(polled.outcome).toBe('ok');
    const archive = { path: service.config.DATABASE_PATH, dir: service.dir };
    const runsInFileAlone = () =>
      inFileAlone(archive, (db) =>
        db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'poll_runs'").pluck().get() === 1
          ? (db.prepare('SELECT count(*) FROM poll_runs').pluck().get() as number)
          : 0,
      );
    expect(await waitFor(() => runsInFileAlone() === 1, 5_000)).toBe(true);
  });
});
