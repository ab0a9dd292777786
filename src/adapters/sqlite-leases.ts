/** Named leases in SQLite: the Leases port. Each step is one conditional statement, atomic by itself on both drivers. */
import type { Leases } from '../core/ports.ts';
import { changedRows } from './sqlite-connection.ts';
import type { PollStatements } from './sqlite-statements.ts';

export function createSqliteLeases(st: PollStatements): Leases {
  return {
    async tryAcquireLease(name, holder, now, ttlMs) {
      return changedRows(await st.acquireLease.run({ name, holder, expiresMs: now + ttlMs, now })) === 1;
    },

    async releaseLease(name, holder) {
      await st.releaseLease.run({ name, holder });
    },

    async leaseHolder(name) {
      return (await st.leaseHolder.get({ name }))?.holder ?? null;
    },

    async takeOverLease(name, previous, holder, now, ttlMs) {
      return changedRows(await st.takeOverLease.run({ name, previous, holder, expiresMs: now + ttlMs })) === 1;
    },
  };
}
