/** Opens (and migrates) the archive's SQLite file for Node: WAL, a busy timeout, drizzle/ applied. */
import Database from 'better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { betterSqlite3Connection, type BetterSqlite3Db } from '../adapters/better-sqlite3-connection.ts';
import type { SqliteConnection } from '../adapters/sqlite-connection.ts';
import { settingError } from '../config.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Two processes on one file wait this long for each other's write instead of failing at once. */
const BUSY_TIMEOUT_MS = 5000;

export type SqliteArchive = {
  /** What the store adapters run on (sqlite-connection.ts). */
  connection: SqliteConnection;
  /** Drizzle and the raw handle, for migrations, tools and tests. */
  db: BetterSqlite3Db;
  sqlite: Database.Database;
  close(): void;
};

export function openSqliteArchive(path: string, options: { migrate?: boolean } = {}): SqliteArchive {
  const sqlite = openWalFile(path);
  // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commit.
  sqlite.pragma('synchronous = NORMAL');
  const connection = betterSqlite3Connection(sqlite);
  const db = connection.db as unknown as BetterSqlite3Db;
  if (options.migrate !== false) migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return { connection, db, sqlite, close: () => sqlite.close() };
}

function openWalFile(path: string): Database.Database {
  let sqlite: Database.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    sqlite = new Database(path);
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // The first statement that reads the file: where "not a database" shows up.
    sqlite.pragma('journal_mode = WAL');
    return sqlite;
  } catch (error) {
    sqlite?.close();
    throw databasePathError(path, error);
  }
}

/** What a user can do about a DATABASE_PATH that cannot be opened; other errors pass through. */
function databasePathError(path: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  const fix = 'set DATABASE_PATH (or --database-path) to a file in a folder this user can write, e.g. ./data/statuswatch.db';
  switch (code) {
    case 'SQLITE_NOTADB':
      return settingError(
        'DATABASE_PATH',
        path,
        'the file exists but is not an SQLite database',
        'point DATABASE_PATH at the archive, or at a path where none exists yet to start a new one',
      );
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
    case 'SQLITE_IOERR':
      return settingError('DATABASE_PATH', path, `cannot be opened for writing (${code})`, fix);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'ENOTDIR':
    case 'EEXIST':
      return settingError('DATABASE_PATH', path, `its folder cannot be created (${code}: ${(error as Error).message})`, fix);
    default:
      return error;
  }
}
