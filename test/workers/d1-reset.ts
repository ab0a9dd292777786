/** Empties every table of the archive in the test D1 database, so each contract test starts from nothing. */
import type { D1DatabaseLike } from '../../src/adapters/d1-connection.ts';

/** D1's own bookkeeping, SQLite's, the migrations log and FTS5's shadow tables are left alone. */
const ARCHIVE_TABLES = `SELECT name FROM sqlite_master WHERE type = 'table'
  AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'incidents_fts_%' AND name <> 'd1_migrations'`;

export async function emptyD1(db: D1DatabaseLike): Promise<void> {
  const tables = ((await db.prepare(ARCHIVE_TABLES).all()).results ?? []) as { name: string }[];
  await db.batch([...tables.map(({ name }) => db.prepare(`DELETE FROM "${name}"`)), db.prepare('DELETE FROM sqlite_sequence')]);
}
