/** A real SQLite archive file in a fresh temporary directory, removed after the test. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { Store } from '../../src/core/ports.ts';
import { openSqliteArchive, type SqliteArchive } from '../../src/entry/open-sqlite.ts';

export type TempArchive = SqliteArchive & { store: Store; path: string; dir: string; reopen(): TempArchive; remove(): void };

export function tempDir(prefix = 'statuswatch-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function openTempArchive(dir = tempDir()): TempArchive {
  const path = join(dir, 'archive.db');
  const archive = openSqliteArchive(path);
  return {
    ...archive,
    store: createSqliteStore(archive.connection),
    path,
    dir,
    reopen() {
      archive.close();
      return openTempArchive(dir);
    },
    remove() {
      try {
        archive.close();
      } catch {
        // already closed
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
