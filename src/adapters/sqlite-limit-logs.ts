/**
 * Limiter logs (rate_limits rows: a JSON log under a key) read, decided on, and written back as
 * compare-and-swap: the decision is the core's (rate-limit.ts, guess-throttle.ts), taken on what
 * was read; the write is one fixed list whose first statements fail if any log changed since the
 * read, so the whole list rolls back and the step reads and decides again. That is how a step that
 * must read before it writes stays atomic on D1, where a batch cannot branch on a read; on
 * better-sqlite3 it runs as one transaction and behaves the same.
 */
import type { BatchStatement, SqliteConnection } from './sqlite-connection.ts';

/** Tries before a step gives up: each failed try means another writer's step went through. */
export const LIMIT_LOG_TRIES = 8;

/**
 * Logs kept at most, whatever retention has not pruned yet: each new client address makes one, and
 * a flood from many addresses (700,000 in 10 minutes) outran the prune. Past it the least recently
 * written go, at the write that made one too many: that forgets their limits, which only ever lets
 * an idle address start afresh. About 100 bytes a row with its indexes: 10 MB.
 */
export const RATE_LIMIT_ROWS_MAX = 100_000;

/**
 * The swap guard: sets the log to itself while it is still the text read (IS: also when there was
 * no row), otherwise to NULL, which the NOT NULL column refuses. A row written since an empty read
 * fails it too; a row pruned since the read matches nothing, and the upsert writes it anew.
 */
const GUARD_LOG = `UPDATE rate_limits SET hits_json = CASE WHEN hits_json IS ? THEN hits_json END WHERE key = ?`;
const GUARD_FAILURE = 'NOT NULL constraint failed: rate_limits.hits_json';

/**
 * REPLACE, not an upsert: the row is written anew under the next rowid, so rowids run in the order
 * logs were last written, and the bound below finds the least recently written by rowid alone.
 */
const UPSERT_LOG = `INSERT OR REPLACE INTO rate_limits (key, hits_json, expires_ms) VALUES (?, ?, ?)`;

/**
 * Keeps the logs written by the last `maxRows` writes: rowids are handed out in increasing order
 * (the table's largest plus one), so any row at or below largest - maxRows was last written
 * before them. A seek on the rowid at each end, not a count of the table.
 */
const BOUND_LOGS = `DELETE FROM rate_limits WHERE rowid <= (SELECT max(rowid) FROM rate_limits) - ?`;

const READ_LOGS = `SELECT key, hits_json FROM rate_limits WHERE key IN (SELECT value FROM json_each(?))`;

export type LogWrite = { key: string; hitsJson: string; expiresMs: number };

/** What a step decided on what it read: the writes to make (none: nothing to swap) and its answer. */
export type LogStep<T> = { writes: readonly LogWrite[]; extra?: readonly BatchStatement[]; result: T };

export class LimitLogContention extends Error {
  constructor(tries: number) {
    super(`limiter logs kept changing under ${tries} tries`);
    this.name = 'LimitLogContention';
  }
}

/**
 * Reads the logs of `keys` (null where none), lets `decide` choose writes, and swaps them in,
 * retrying on a concurrent change. Throws LimitLogContention after LIMIT_LOG_TRIES: callers fail
 * closed on it.
 */
export async function swapLimitLogs<T>(
  connection: SqliteConnection,
  keys: readonly string[],
  decide: (logs: (string | null)[]) => LogStep<T>,
  maxRows: number = RATE_LIMIT_ROWS_MAX,
): Promise<T> {
  for (let attempt = 0; attempt < LIMIT_LOG_TRIES; attempt++) {
    const rows = await connection.all<{ key: string; hits_json: string }>(READ_LOGS, [JSON.stringify(keys)]);
    const read = keys.map((key) => rows.find((row) => row.key === key)?.hits_json ?? null);
    const step = decide(read);
    if (step.writes.length === 0 && !step.extra?.length) return step.result;
    const list: BatchStatement[] = [
      ...keys.map((key, i) => ({ sql: GUARD_LOG, params: [read[i] ?? null, key] })),
      ...step.writes.map((w) => ({ sql: UPSERT_LOG, params: [w.key, w.hitsJson, w.expiresMs] })),
      ...(step.writes.length > 0 ? [{ sql: BOUND_LOGS, params: [maxRows] }] : []),
      ...(step.extra ?? []),
    ];
    try {
      await connection.runAtomically(list);
      return step.result;
    } catch (error) {
      if (!(error instanceof Error && error.message.includes(GUARD_FAILURE))) throw error;
    }
  }
  throw new LimitLogContention(LIMIT_LOG_TRIES);
}
