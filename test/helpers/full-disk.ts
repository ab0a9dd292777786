/** A database whose disk is full, for this connection: every write that needs a new page fails with SQLITE_FULL. */
import type Database from 'better-sqlite3';

/** SQLite's own upper bound for max_page_count: as good as no limit. */
const NO_PAGE_LIMIT = 4_294_967_294;

/**
 * Caps the file at its current size (PRAGMA max_page_count, see SETUP.md) and fills the room left
 * in its pages, so even an update that grows a row fails. Returns a function that frees the space.
 */
export function fillDisk(sqlite: Database.Database): () => void {
  sqlite.exec('CREATE TABLE IF NOT EXISTS test_disk_filler (bytes BLOB)');
  sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
  const insert = sqlite.prepare('INSERT INTO test_disk_filler VALUES (randomblob(?))');
  for (const bytes of [4000, 1000, 200, 50, 10]) {
    try {
      for (;;) insert.run(bytes);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_FULL') throw error;
    }
  }
  return () => void sqlite.pragma(`max_page_count = ${NO_PAGE_LIMIT}`);
}
