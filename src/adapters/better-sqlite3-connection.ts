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

export function betterSqlite3Connection(client: Database.Database): SqliteConnection & { db: SqlDb } {
  const db = drizzle(client, { schema });
  // Prepared once per SQL text and mode. The texts are constants of this code base (the values go
  // in params), so the map holds at most a few dozen entries whatever the input.
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string, raw = false): Database.Statement => {
    const key = raw ? `raw:${sql}` : sql;
    let found = prepared.get(key);
    if (!found) {
      found = client.prepare(sql);
      if (raw) found.raw(true);
      prepared.set(key, found);
    }
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
  };
}
