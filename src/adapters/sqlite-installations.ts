/**
 * The vendor app's installations in SQLite: the InstallationStore port. Every write is one
 * conditional statement with RETURNING, run as an atomic list, so it means the same on D1: the
 * database decides who won a race, and the loser learns it from an empty RETURNING.
 */
import { and, desc, eq, isNull, lte, ne, or } from 'drizzle-orm';
import type { InstallationRecord, InstallationStore } from '../core/ports.ts';
import { statementOf, type SqliteConnection } from './sqlite-connection.ts';
import * as t from './store-schema.ts';

const i = t.appInstallations;

function toRecord(row: typeof i.$inferSelect): InstallationRecord {
  return {
    id: row.id,
    teamId: row.teamId,
    teamName: row.teamName,
    botUserId: row.botUserId,
    scopes: JSON.parse(row.scopesJson) as string[],
    accessTokenSealed: row.accessTokenSealed,
    refreshTokenSealed: row.refreshTokenSealed,
    accessExpiresAt: row.accessExpiresMs,
    state: row.state,
    reason: row.reason,
    refreshClaimedAt: row.refreshClaimedMs,
    updatedAt: row.updatedMs,
  };
}

export function createSqliteInstallationStore(connection: SqliteConnection): InstallationStore {
  const { db } = connection;
  /** Runs one statement alone and says whether it touched a row. */
  const applied = async (query: { toSQL(): { sql: string; params: unknown[] } }): Promise<boolean> => {
    const [rows] = await connection.runAtomically([statementOf(query)]);
    return (rows?.length ?? 0) > 0;
  };

  return {
    async saveInstallation(installation, now) {
      const tokens = {
        teamName: installation.teamName,
        botUserId: installation.botUserId,
        scopesJson: JSON.stringify([...installation.scopes].sort()),
        accessTokenSealed: installation.accessTokenSealed,
        refreshTokenSealed: installation.refreshTokenSealed,
        accessExpiresMs: installation.accessExpiresAt,
        state: 'active' as const,
        reason: null,
        refreshClaimedMs: null,
        updatedMs: now,
      };
      // A re-install of the same team keeps the installation's id, so what hangs off it resumes.
      const row = await db
        .insert(i)
        .values({ id: installation.id, teamId: installation.teamId, createdMs: now, ...tokens })
        .onConflictDoUpdate({ target: i.teamId, set: tokens })
        .returning()
        .get();
      if (!row) throw new Error(`installation of team ${installation.teamId} was not saved`);
      return toRecord(row);
    },

    async findInstallation(id) {
      const row = await db.select().from(i).where(eq(i.id, id)).get();
      return row ? toRecord(row) : null;
    },

    async listInstallations(limit) {
      const rows = await db.select().from(i).orderBy(desc(i.createdMs), desc(i.id)).limit(limit).all();
      return rows.map(toRecord);
    },

    async claimRefresh(id, refreshTokenSealed, now, claimTtlMs) {
      return applied(
        db
          .update(i)
          // updatedAt stays the pair's issue: core/workspace-app/token-rotation.ts reads the token's lifetime from it.
          .set({ refreshClaimedMs: now })
          .where(
            and(
              eq(i.id, id),
              eq(i.refreshTokenSealed, refreshTokenSealed),
              eq(i.state, 'active'),
              or(isNull(i.refreshClaimedMs), lte(i.refreshClaimedMs, now - claimTtlMs)),
            ),
          )
          .returning({ id: i.id }),
      );
    },

    async swapTokens(id, oldRefreshTokenSealed, pair, now) {
      return applied(
        db
          .update(i)
          .set({
            accessTokenSealed: pair.accessTokenSealed,
            refreshTokenSealed: pair.refreshTokenSealed,
            accessExpiresMs: pair.accessExpiresAt,
            refreshClaimedMs: null,
            updatedMs: now,
          })
          .where(and(eq(i.id, id), eq(i.refreshTokenSealed, oldRefreshTokenSealed), eq(i.state, 'active')))
          .returning({ id: i.id }),
      );
    },

    async markBroken(id, reason, now) {
      return applied(
        db
          .update(i)
          .set({ state: 'broken', reason, refreshClaimedMs: null, updatedMs: now })
          .where(and(eq(i.id, id), eq(i.state, 'active')))
          .returning({ id: i.id }),
      );
    },

    async markUninstalled(id, reason, now) {
      return applied(
        db
          .update(i)
          .set({ state: 'uninstalled', reason, accessTokenSealed: null, refreshTokenSealed: null, refreshClaimedMs: null, updatedMs: now })
          .where(and(eq(i.id, id), ne(i.state, 'uninstalled')))
          .returning({ id: i.id }),
      );
    },
  };
}
