/**
 * Admin sessions and the admin-token guess throttle in SQLite: the AdminAccessStore port. Each
 * session step is a fixed list of statements (no read-then-branch), as D1's batch will need.
 */
import { and, desc, eq, lt, ne, notInArray, or, sql } from 'drizzle-orm';
import { decideGuess } from '../core/guess-throttle.ts';
import type { AdminAccessStore, AdminSessionRecord } from '../core/ports.ts';
import type { SqliteDatabase } from './sqlite-statements.ts';
import * as t from './store-schema.ts';

export function createSqliteAdminAccessStore(db: SqliteDatabase): AdminAccessStore {
  const s = t.adminSessions;
  const toRecord = (row: typeof s.$inferSelect): AdminSessionRecord => ({
    idHash: row.idHash,
    tokenFingerprint: row.tokenFingerprint,
    createdAt: row.createdMs,
    expiresAt: row.expiresMs,
  });

  return {
    async createAdminSession(session, maxLive) {
      db.transaction(() => {
        db.insert(s)
          .values({ idHash: session.idHash, tokenFingerprint: session.tokenFingerprint, createdMs: session.createdAt, expiresMs: session.expiresAt, lastSeenMs: session.createdAt })
          .run();
        db.delete(s).where(or(lt(s.expiresMs, session.createdAt), ne(s.tokenFingerprint, session.tokenFingerprint))).run();
        // rowid breaks ties between sessions made in the same millisecond: the newest always stays.
        const newest = db.select({ idHash: s.idHash }).from(s).orderBy(desc(s.createdMs), desc(sql`rowid`)).limit(maxLive);
        db.delete(s).where(notInArray(s.idHash, newest)).run();
      });
    },

    async touchAdminSession(idHash, tokenFingerprint, now) {
      return db.transaction(() => {
        db.delete(s).where(ne(s.tokenFingerprint, tokenFingerprint)).run();
        const row = db
          .update(s)
          .set({ lastSeenMs: now })
          .where(and(eq(s.idHash, idHash), eq(s.tokenFingerprint, tokenFingerprint), sql`${now} < ${s.expiresMs}`))
          .returning()
          .get();
        return row ? toRecord(row) : null;
      });
    },

    async deleteAdminSession(idHash) {
      db.delete(s).where(eq(s.idHash, idHash)).run();
    },

    // Logs share rate_limits with the sign-up limiter ({hitsMs} JSON, distinct keys). Reading and
    // writing in one transaction makes concurrent guesses queue: none slips past a full log. A
    // wrong guess may write, so it takes the write lock first: upgrading a read transaction would
    // fail with SQLITE_BUSY when another process wrote in between. A right one only reads.
    async throttleGuess(limits, wrong, now) {
      const r = t.rateLimits;
      return db.transaction(() => {
        const logs = limits.map(({ key }) => {
          const row = db.select().from(r).where(eq(r.key, key)).get();
          const parsed = row ? (JSON.parse(row.hitsJson) as { hitsMs?: unknown }) : null;
          return Array.isArray(parsed?.hitsMs) ? (parsed.hitsMs as number[]) : undefined;
        });
        const decision = decideGuess(logs, limits, wrong, now);
        if (!decision.allowed || decision.writes.length === 0) return decision;
        for (const write of decision.writes) {
          const hitsJson = JSON.stringify({ hitsMs: write.failuresMs });
          db.insert(r).values({ key: write.key, hitsJson, expiresMs: write.expiresMs }).onConflictDoUpdate({ target: r.key, set: { hitsJson, expiresMs: write.expiresMs } }).run();
        }
        db.delete(r).where(lt(r.expiresMs, now)).run();
        return decision;
      }, { behavior: wrong ? 'immediate' : 'deferred' });
    },
  };
}
