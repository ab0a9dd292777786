/**
 * Runs a fixed list of SQL statements atomically on better-sqlite3: one transaction, the shape a
 * D1 adapter runs unchanged as `d1.batch(list.map((s) => d1.prepare(s.sql).bind(...s.params)))`.
 *
 * The rules a list must keep, so that it means the same in both places:
 * - The list is decided before it runs, from the use case's plan. No statement's result decides
 *   which statement comes next or what it binds: D1 sends the whole batch at once.
 * - What a write needs from the database comes from a sub-select inside that write (a row's pk, the
 *   next sort key), and conditions are conditional writes: `INSERT ... SELECT ... WHERE`,
 *   `ON CONFLICT`, `UPDATE ... WHERE revision = ?`.
 * - A precondition that must abort the whole step is a statement that violates a constraint
 *   when it does not hold (e.g. NULL into a NOT NULL column from a sub-select): the statement
 *   fails, so the transaction (or the batch) rolls back as a whole.
 * - Parameters are positional `?` (D1 binds no names), at most 100 a statement (D1's limit; lists
 *   of ids or rows go in as one JSON text, read with json_each); values are numbers, strings or null.
 * - Reads that return something to the caller come after the last write.
 */
import type Database from 'better-sqlite3';

export type SqlValue = string | number | null;

/** One statement of an atomic list: constant SQL text and the values bound to it this time. */
export type BatchStatement = { sql: string; params: readonly SqlValue[] };

export type BatchRunner = {
  /** Runs every statement in order in one transaction; returns the rows each one returned (writes: none). */
  runAtomically(list: readonly BatchStatement[]): unknown[][];
};

export function createBatchRunner(client: Database.Database): BatchRunner {
  // Prepared once per SQL text. The texts are constants of this code base (the values go in
  // params), so the map holds at most a few dozen entries whatever the input.
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let found = prepared.get(sql);
    if (!found) {
      found = client.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
  const run = client.transaction((list: readonly BatchStatement[]): unknown[][] =>
    list.map(({ sql, params }) => {
      const s = statement(sql);
      if (s.reader) return s.all(...params) as unknown[];
      s.run(...params);
      return [];
    }),
  );
  return { runAtomically: (list) => run(list) };
}
