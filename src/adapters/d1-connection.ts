/**
 * The SQLite connection on Workers: drizzle over a D1 binding, atomic lists as one `batch()`
 * (D1 runs a batch as one transaction: a failing statement rolls back all of it).
 */
import { drizzle } from 'drizzle-orm/d1';
import type { BatchStatement, SqlDb, SqliteConnection, SqlValue } from './sqlite-connection.ts';
import * as schema from './store-schema.ts';

/** The part of Workers' D1Database used here, so this file needs no Workers globals to compile. */
export type D1DatabaseLike = {
  prepare(sql: string): D1StatementLike;
  batch(statements: D1StatementLike[]): Promise<{ results?: unknown[] }[]>;
};
type D1StatementLike = {
  bind(...values: unknown[]): D1StatementLike;
  all(): Promise<{ results?: unknown[] }>;
  raw(): Promise<unknown[][]>;
};

export function d1Connection(d1: D1DatabaseLike): SqliteConnection {
  const db = drizzle(d1 as never, { schema });
  const bound = ({ sql, params }: BatchStatement) => d1.prepare(sql).bind(...params);
  return {
    db: db as unknown as SqlDb,
    async runAtomically(list) {
      if (list.length === 0) return [];
      const results = await d1.batch(list.map(bound));
      return results.map((r) => r.results ?? []);
    },
    async all<T>(sql: string, params: readonly SqlValue[]) {
      return ((await bound({ sql, params }).all()).results ?? []) as T[];
    },
    async rows<T extends unknown[]>(sql: string, params: readonly SqlValue[]) {
      return (await bound({ sql, params }).raw()) as T[];
    },
  };
}
