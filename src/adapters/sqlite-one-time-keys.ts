/**
 * Keys usable once, in SQLite: the OneTimeKeyStore port. Remembering is one atomic list (drop the
 * kind's expired keys, insert unless a live one is there, trim the kind to its bound), so two
 * processes or two Workers isolates that see the same key at once cannot both be told it is new.
 */
import type { OneTimeKeyStore } from '../core/ports.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const DROP_EXPIRED = 'DELETE FROM one_time_keys WHERE kind = ? AND expires_ms <= ?';
const INSERT_NEW =
  'INSERT INTO one_time_keys (kind, key, payload, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, key) DO NOTHING RETURNING key';
// Newest first by creation, rowid breaking ties: everything past the bound goes.
const TRIM_TO_BOUND =
  'DELETE FROM one_time_keys WHERE kind = ? AND rowid IN (SELECT rowid FROM one_time_keys WHERE kind = ? ORDER BY created_ms DESC, rowid DESC LIMIT -1 OFFSET ?)';
const TAKE_LIVE = 'DELETE FROM one_time_keys WHERE kind = ? AND key = ? AND expires_ms > ? AND (? IS NULL OR payload = ?) RETURNING payload';

export function createSqliteOneTimeKeyStore(connection: SqliteConnection): OneTimeKeyStore {
  return {
    async rememberKey(entry, now, maxKeys) {
      const [, inserted] = await connection.runAtomically([
        { sql: DROP_EXPIRED, params: [entry.kind, now] },
        { sql: INSERT_NEW, params: [entry.kind, entry.key, entry.payload, now, entry.expiresAt] },
        { sql: TRIM_TO_BOUND, params: [entry.kind, entry.kind, Math.max(0, Math.floor(maxKeys))] },
      ]);
      return (inserted?.length ?? 0) > 0;
    },

    async consumeKey(kind, key, now, owner) {
      const [taken] = await connection.runAtomically([{ sql: TAKE_LIVE, params: [kind, key, now, owner ?? null, owner ?? null] }]);
      const payload = (taken?.[0] as { payload?: unknown } | undefined)?.payload;
      return typeof payload === 'string' ? payload : null;
    },
  };
}
