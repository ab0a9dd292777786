/**
 * What every SQLite adapter is written against, so one adapter serves both runtimes: better-sqlite3
 * on Node (better-sqlite3-connection.ts) and D1 on Workers (d1-connection.ts). SQLite is the
 * technology; the two are drivers of it, and the SQL, the schema and the migrations are the same.
 *
 * Atomic steps are fixed lists of statements (`runAtomically`): one better-sqlite3 transaction,
 * or one D1 `batch()`. The rules a list must keep, so that it means the same in both places:
 * - The list is decided before it runs, from the use case's plan. No statement's result decides
 *   which statement comes next or what it binds: D1 sends the whole batch at once.
 * - What a write needs from the database comes from a sub-select inside that write (a row's pk, the
 *   next sort key), and conditions are conditional writes: `INSERT ... SELECT ... WHERE`,
 *   `ON CONFLICT`, `UPDATE ... WHERE revision = ?`.
 * - A precondition that must abort the whole step is a statement that violates a constraint
 *   when it does not hold (e.g. NULL into a NOT NULL column from a sub-select): the statement
 *   fails, so the transaction (or the batch) rolls back as a whole.
 * - Parameters are positional `?` or `?NNN` (D1 binds no names), at most 100 a statement (D1's
 *   limit; lists of ids or rows go in as one JSON text, read with json_each); values are numbers,
 *   strings or null.
 * - What a write must report (did it apply?) comes back through `RETURNING` in the same list.
 */
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as schema from './store-schema.ts';

export type SqlValue = string | number | null;

/** One statement of an atomic list: constant SQL text and the values bound to it this time. */
export type BatchStatement = { sql: string; params: readonly SqlValue[] };

/**
 * Drizzle over either driver, typed as the asynchronous (D1) form. Every call is awaited, which is
 * right for both: better-sqlite3's answers are plain values, and awaiting a value gives it back.
 */
export type SqlDb = BaseSQLiteDatabase<'async', unknown, typeof schema>;

export interface SqliteConnection {
  readonly db: SqlDb;
  /** Runs every statement in order as one atomic step; returns the rows each one returned. */
  runAtomically(list: readonly BatchStatement[]): Promise<unknown[][]>;
  /** The rows of one read, as objects keyed by column name. */
  all<T>(sql: string, params: readonly SqlValue[]): Promise<T[]>;
  /** The rows of one read, as arrays of column values (cheaper for long lists). */
  rows<T extends unknown[]>(sql: string, params: readonly SqlValue[]): Promise<T[]>;
}

/** How many rows a drizzle `run()` changed, in either driver's result shape. */
export function changedRows(result: unknown): number {
  const r = result as { changes?: number; meta?: { changes?: number } };
  return r.changes ?? r.meta?.changes ?? 0;
}

/** A drizzle query as a statement of an atomic list: its SQL text and values, run by the list. */
export function statementOf(query: { toSQL(): { sql: string; params: unknown[] } }): BatchStatement {
  const { sql, params } = query.toSQL();
  return { sql, params: params.map(toSqlValue) };
}

function toSqlValue(value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw new TypeError(`cannot bind a ${typeof value} in an atomic list`);
}
