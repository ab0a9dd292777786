/**
 * `statuswatch backup FILE`: a consistent copy of the archive while serve keeps writing to it,
 * through SQLite's online backup (better-sqlite3's `backup()`), which copies pages in steps and
 * starts over when another connection writes mid-copy. The copy is written beside FILE under a
 * temporary name and renamed when complete, so FILE is never half a database.
 */
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { settingError } from '../config.ts';

/** The most pages better-sqlite3 lets one backup step copy: the whole file, in practice. */
const ALL_PAGES = 0x7fffffff;

export type BackupSummary = { pages: number; bytes: number };

export async function backupArchive(databasePath: string, outPath: string): Promise<BackupSummary> {
  if (databasePath === ':memory:' || !existsSync(databasePath)) {
    throw settingError(
      'DATABASE_PATH',
      databasePath,
      'no archive there',
      'point DATABASE_PATH (or --database-path) at the archive to back up, e.g. ./data/statuswatch.db',
    );
  }
  if (existsSync(outPath)) throw settingError('FILE', outPath, 'the file exists already', 'name a new file, e.g. statuswatch backup backup-$(date +%F).db');
  const partialPath = `${outPath}.partial`;
  // Read-only: a backup must never change the archive it copies (nor migrate it).
  const source = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    // One step, so one read transaction: a consistent snapshot. In WAL mode serve keeps writing
    // meanwhile (readers do not block writers); a copy in small steps would start over at every
    // write of another connection and might never end on a busy archive.
    const progress = await source.backup(partialPath, { progress: () => ALL_PAGES });
    const copy = new Database(partialPath, { readonly: true, fileMustExist: true });
    try {
      // The copy must be whole before it takes the name a restore will look for.
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy failed SQLite's quick_check: ${String(check)}`);
    } finally {
      copy.close();
    }
    renameSync(partialPath, outPath);
    const pageSize = source.pragma('page_size', { simple: true }) as number;
    return { pages: progress.totalPages, bytes: progress.totalPages * pageSize };
  } catch (error) {
    rmSync(partialPath, { force: true });
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB') throw settingError('DATABASE_PATH', databasePath, 'the file is not an SQLite database', 'point DATABASE_PATH at the archive');
    if (code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'ENOENT')
      throw settingError('FILE', outPath, `cannot be written (${code})`, 'name a file in a folder this user can write');
    throw error;
  } finally {
    source.close();
  }
}
