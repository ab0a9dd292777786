/**
 * Admin sessions and the admin-token guess throttle in SQLite: the AdminAccessStore port. Each
 * step is a fixed list of statements (no read-then-branch), one transaction or one D1 batch.
 */
import { and, desc, eq, lt, ne, notInArray, or, sql } from 'drizzle-orm';
import { decideGuess, type GuessDecision } from '../core/guess-throttle.ts';
import type { AdminAccessStore, AdminSessionRecord } from '../core/ports.ts';
import { LimitLogContention, swapLimitLogs } from './sqlite-limit-logs.ts';
import { statementOf, type SqliteConnection } from './sqlite-connection.ts';
import * as t from './store-schema.ts';

/** `maxRateLimitRows`: the limiter logs kept at most (see RATE_LIMIT_ROWS_MAX). */
export function createSqliteAdminAccessStore(connection: SqliteConnection, maxRateLimitRows?: number): AdminAccessStore {
  const { db } = connection;
  const s = t.adminSessions;
  const toRecord = (row: typeof s.$inferSelect): AdminSessionRecord => ({
    idHash: row.idHash,
    tokenFingerprint: row.tokenFingerprint,
    createdAt: row.createdMs,
    expiresAt: row.expiresMs,
  });

  return {
    async createAdminSession(session, maxLive) {
      // rowid breaks ties between sessions made in the same millisecond: the newest always stays.
      const newest = db.select({ idHash: s.idHash }).from(s).orderBy(desc(s.createdMs), desc(sql`rowid`)).limit(maxLive);
      await connection.runAtomically([
        statementOf(
          db.insert(s).values({
            idHash: session.idHash,
            tokenFingerprint: session.tokenFingerprint,
            createdMs: session.createdAt,
            expiresMs: session.expiresAt,
            lastSeenMs: session.createdAt,
          }),
        ),
        statementOf(db.delete(s).where(or(lt(s.expiresMs, session.createdAt), ne(s.tokenFingerprint, session.tokenFingerprint)))),
        statementOf(db.delete(s).where(notInArray(s.idHash, newest))),
      ]);
    },

    async touchAdminSession(idHash, tokenFingerprint, now) {
      const [, touched] = await connection.runAtomically([
        statementOf(db.delete(s).where(ne(s.tokenFingerprint, tokenFingerprint))),
        statementOf(
          db
            .update(s)
            .set({ lastSeenMs: now })
            .where(and(eq(s.idHash, idHash), eq(s.tokenFingerprint, tokenFingerprint), sql`${now} < ${s.expiresMs}`))
            .returning(),
        ),
      ]);
      const row = touched?.[0] as Record<string, number | string> | undefined;
      return row
        ? toRecord({
            idHash: String(row.id_hash),
            tokenFingerprint: String(row.token_fingerprint),
            createdMs: Number(row.created_ms),
            expiresMs: Number(row.expires_ms),
            lastSeenMs: Number(row.last_seen_ms),
          })
        : null;
    },

    async deleteAdminSession(idHash) {
      await db.delete(s).where(eq(s.idHash, idHash)).run();
    },

    // Logs share rate_limits with the sign-up limiter ({hitsMs} JSON, distinct keys). A wrong guess
    // swaps its logs in only if no other guess wrote them since they were read (sqlite-limit-logs.ts),
    // so none slips past a full log however many run at once. A right one only reads.
    async throttleGuess(limits, wrong, now) {
      try {
        return await swapLimitLogs<GuessDecision>(
          connection,
          limits.map((limit) => limit.key),
          (texts) => {
            const logs = texts.map((text) => {
              const parsed = text === null ? null : (JSON.parse(text) as { hitsMs?: unknown });
              return Array.isArray(parsed?.hitsMs) ? (parsed.hitsMs as number[]) : undefined;
            });
            const decision = decideGuess(logs, limits, wrong, now);
            if (!decision.allowed) return { writes: [], result: decision };
            return {
              writes: decision.writes.map((w) => ({ key: w.key, hitsJson: JSON.stringify({ hitsMs: w.failuresMs }), expiresMs: w.expiresMs })),
              // Logs a flood of addresses leaves behind go with the next wrong guess (one index seek),
              // not only at the next retention run.
              extra: decision.writes.length > 0 ? [statementOf(db.delete(t.rateLimits).where(lt(t.rateLimits.expiresMs, now)))] : [],
              result: decision,
            };
          },
          maxRateLimitRows,
        );
      } catch (error) {
        // Fail closed: a guess that could not be recorded is not let through.
        if (error instanceof LimitLogContention) return { allowed: false, retryAfterMs: 1000 };
        throw error;
      }
    },
  };
}
