/**
 * The SQLite connection on Node: drizzle over better-sqlite3, atomic lists as one synchronous
 * transaction (nothing else runs on the thread meanwhile, and any throw, SQLITE_FULL included,
 * rolls the whole list back).
 */
import type Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { BatchStatement, SqlDb, SqliteConnection, SqlValue } from './sqlite-connection.ts';
import * as schema from './store-schema.ts';

export type BetterSqlite3Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/**
 * Statements kept prepared, the least recently used leaving first. The texts are constants of this
 * code base (the values go in params), but a list's filters choose which conditions its text has:
 * a few hundred shapes in all, of which a server uses a few dozen.
 */
export const PREPARED_STATEMENTS_MAX = 128;

export function betterSqlite3Connection(client: Database.Database): SqliteConnection & { db: SqlDb; preparedStatements(): number } {
  const db = drizzle(client, { schema });
  // Prepared once per SQL text and mode; a Map keeps insertion order, so its first key is the
  // least recently used one (a use moves its key to the end).
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string, raw = false): Database.Statement => {
    const key = raw ? `raw:${sql}` : sql;
    let found = prepared.get(key);
    if (found) prepared.delete(key);
    else {
      found = client.prepare(sql);
      if (raw) found.raw(true);
      if (prepared.size >= PREPARED_STATEMENTS_MAX) prepared.delete(prepared.keys().next().value as string);
    }
    prepared.set(key, found);
    return found;
  };
  const runList = client.transaction((list: readonly BatchStatement[]): unknown[][] =>
    list.map(({ sql, params }) => {
      const s = statement(sql);
      if (s.reader) return s.all(...(params as SqlValue[])) as unknown[];
      s.run(...(params as SqlValue[]));
      return [];
    }),
  );
  return {
    // The asynchronous type is what adapters are written against (sqlite-connection.ts SqlDb).
    db: db as unknown as SqlDb,
    async runAtomically(list) {
      return runList(list);
    },
    async all<T>(sql: string, params: readonly SqlValue[]) {
      return statement(sql).all(...(params as SqlValue[])) as T[];
    },
    async rows<T extends unknown[]>(sql: string, params: readonly SqlValue[]) {
      return statement(sql, true).all(...(params as SqlValue[])) as T[];
    },
    preparedStatements: () => prepared.size,
  };
}
