/** Named leases in SQLite: the Leases port. Each step is one conditional statement, atomic by itself on both drivers. */
import type { LeaseClaim, LeaseRelease, Leases } from '../core/ports.ts';
import type { BatchStatement, SqliteConnection } from './sqlite-connection.ts';
import { changedRows } from './sqlite-connection.ts';
import type { PollStatements } from './sqlite-statements.ts';

/**
 * Free, expired or already the claimant's: then it is theirs until the new expiry, and the
 * statement returns one row. A statement list of its own so a poll can take the lease in the same
 * round trip as its first reads (sqlite-archive-writes.ts openPoll). `onlyIf`, a condition with
 * its params: no lease is taken (nor its row written) unless it holds, in the same statement.
 * (`WHERE` also tells SQLite's parser that ON CONFLICT is the upsert's, not a join's.)
 */
const acquireLeaseSql = (condition: string) => `INSERT INTO leases (name, holder, expires_ms) SELECT ?, ?, ? WHERE ${condition}
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
  WHERE leases.expires_ms <= ? OR leases.holder = excluded.holder
  RETURNING holder`;
const ACQUIRE_LEASE = acquireLeaseSql('true');
const RELEASE_LEASE = `DELETE FROM leases WHERE name = ? AND holder = ?`;

export function acquireLeaseStatement({ name, holder, now, ttlMs }: LeaseClaim, onlyIf?: BatchStatement): BatchStatement {
  if (!onlyIf) return { sql: ACQUIRE_LEASE, params: [name, holder, now + ttlMs, now] };
  return { sql: acquireLeaseSql(onlyIf.sql), params: [name, holder, now + ttlMs, ...onlyIf.params, now] };
}

export function releaseLeaseStatement({ name, holder }: LeaseRelease): BatchStatement {
  return { sql: RELEASE_LEASE, params: [name, holder] };
}

export function createSqliteLeases(connection: SqliteConnection, st: PollStatements): Leases {
  return {
    async tryAcquireLease(name, holder, now, ttlMs) {
      const { sql, params } = acquireLeaseStatement({ name, holder, now, ttlMs });
      return (await connection.all(sql, params)).length === 1;
    },

    async releaseLease(name, holder) {
      const { sql, params } = releaseLeaseStatement({ name, holder });
      await connection.runAtomically([{ sql, params }]);
    },

    async leaseHolder(name) {
      return (await st.leaseHolder.get({ name }))?.holder ?? null;
    },

    async takeOverLease(name, previous, holder, now, ttlMs) {
      return changedRows(await st.takeOverLease.run({ name, previous, holder, expiresMs: now + ttlMs })) === 1;
    },
  };
}
