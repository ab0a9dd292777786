/**
 * The plan SQLite chooses for a statement, as `EXPLAIN QUERY PLAN` details ("SEARCH poll_runs USING
 * COVERING INDEX poll_runs_outcome (outcome=?)"): which index a lookup goes through, or that it scans.
 * A plan is decided by the schema and the statement, not by the machine's load, so a test of it does
 * not flake where a timing would. Each `?` is bound to 0: the plan does not depend on the values.
 */
import type Database from 'better-sqlite3';

export function queryPlan(sqlite: Database.Database, text: string): string[] {
  const params = Array.from({ length: (text.match(/\?/g) ?? []).length }, () => 0);
  return (sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((row) => row.detail);
}
