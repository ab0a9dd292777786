/** Opens (and migrates) the archive's SQLite file for Node: WAL, a busy timeout, drizzle/ applied. */
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqliteDatabase } from '../adapters/sqlite-store.ts';
import * as schema from '../adapters/store-schema.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Two processes on one file wait this long for each other's write instead of failing at once. */
const BUSY_TIMEOUT_MS = 5000;

export type SqliteArchive = { db: SqliteDatabase; sqlite: Database.Database; close(): void };

export function openSqliteArchive(path: string, options: { migrate?: boolean } = {}): SqliteArchive {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commit.
  sqlite.pragma('synchronous = NORMAL');
  const db = drizzle(sqlite, { schema });
  if (options.migrate !== false) migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return { db, sqlite, close: () => sqlite.close() };
}
