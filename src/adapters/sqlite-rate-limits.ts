/** Rate limits in SQLite: the RateLimitStore port, each hit a compare-and-swap of its log (sqlite-limit-logs.ts). */
import type { RateLimitStore } from '../core/ports.ts';
import { checkLimit, type LimitState } from '../core/rate-limit.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { LimitLogContention, swapLimitLogs } from './sqlite-limit-logs.ts';

/** `maxRows`: the limiter logs kept at most (RATE_LIMIT_ROWS_MAX, shared with the admin-token throttle's). */
export function createSqliteRateLimitStore(connection: SqliteConnection, maxRows?: number): RateLimitStore {
  return {
    async hitRateLimit(key, rule, now, options = {}) {
      // Expired logs are pruned in the background (sqlite-retention.ts): deleting them here
      // scanned the whole table on every hit.
      try {
        return await swapLimitLogs(
          connection,
          [key],
          ([text]) => {
            const decision = checkLimit(text ? (JSON.parse(text) as LimitState) : undefined, rule, now);
            if (options.peek) return { writes: [], result: decision };
            return { writes: [{ key, hitsJson: JSON.stringify(decision.state), expiresMs: now + rule.windowMs }], result: decision };
          },
          maxRows,
        );
      } catch (error) {
        // Fail closed: a hit that could not be recorded is not let through.
        if (error instanceof LimitLogContention) return { ...checkLimit(undefined, rule, now), allowed: false, retryAfterMs: rule.windowMs };
        throw error;
      }
    },
  };
}
