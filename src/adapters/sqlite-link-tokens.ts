/** Email link tokens in SQLite (only their hash): the LinkTokenStore port. */
import { eq } from 'drizzle-orm';
import type { LinkTokenStore } from '../core/ports.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import * as t from './store-schema.ts';

export function createSqliteLinkTokenStore({ db }: SqliteConnection): LinkTokenStore {
  return {
    async saveToken(record) {
      await db
        .insert(t.linkTokens)
        .values({ hash: record.hash, purpose: record.purpose, subscriptionId: record.subscriptionId, expiresMs: record.expiresAt })
        .run();
    },

    async findToken(hash) {
      const row = await db.select().from(t.linkTokens).where(eq(t.linkTokens.hash, hash)).get();
      return row ? { hash: row.hash, purpose: row.purpose, subscriptionId: row.subscriptionId, expiresAt: row.expiresMs, usedAt: row.usedMs } : null;
    },

    async markTokenUsed(hash, now) {
      // Expired tokens are pruned in the background (sqlite-retention.ts), not on this path.
      await db.update(t.linkTokens).set({ usedMs: now }).where(eq(t.linkTokens.hash, hash)).run();
    },
  };
}
