/**
 * The spec's SCIM rate-limit table as token buckets: each scope refills at its per-minute limit and
 * holds at most its burst, so a client may send a burst at once and then the steady rate. Every
 * request draws from the org-wide bucket of its kind (reads or writes) and from its endpoint's
 * bucket, if it has one; both must have a token, and a refused request draws from neither.
 */

export type RateScope =
  | 'reads'
  | 'writes'
  | 'users.get'
  | 'users.create'
  | 'users.update'
  | 'users.delete'
  | 'groups.get'
  | 'groups.create'
  | 'groups.update'
  | 'groups.delete';

export type RateRule = { perMinute: number; burst: number };

/** "Limits / SCIM rate limits" of the spec, row by row. */
export const SCIM_RATE_LIMITS: Readonly<Record<RateScope, RateRule>> = {
  writes: { perMinute: 600, burst: 180 },
  reads: { perMinute: 1000, burst: 1000 },
  'users.get': { perMinute: 300, burst: 300 },
  'users.create': { perMinute: 180, burst: 20 },
  'users.update': { perMinute: 180, burst: 20 },
  'users.delete': { perMinute: 180, burst: 20 },
  'groups.get': { perMinute: 300, burst: 300 },
  'groups.create': { perMinute: 180, burst: 20 },
  'groups.update': { perMinute: 180, burst: 80 },
  'groups.delete': { perMinute: 180, burst: 20 },
};

type Bucket = { tokens: number; atMs: number };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; scope: RateScope };

export type RateLimiter = {
  /** Takes one token from each scope, or none when any is empty. */
  take(scopes: readonly RateScope[], nowMs: number): RateDecision;
  reset(): void;
};

export function createRateLimiter(rules: Readonly<Record<RateScope, RateRule>> = SCIM_RATE_LIMITS): RateLimiter {
  // One bucket per scope in the table: the map cannot grow past ten entries.
  const buckets = new Map<RateScope, Bucket>();
  const refilled = (scope: RateScope, nowMs: number): Bucket => {
    const rule = rules[scope];
    const bucket = buckets.get(scope) ?? { tokens: rule.burst, atMs: nowMs };
    // A clock set backwards by a test refills nothing rather than draining.
    const elapsedMs = Math.max(0, nowMs - bucket.atMs);
    const tokens = Math.min(rule.burst, bucket.tokens + (elapsedMs * rule.perMinute) / 60_000);
    return { tokens, atMs: Math.max(nowMs, bucket.atMs) };
  };
  return {
    take(scopes, nowMs) {
      const current = scopes.map((scope) => ({ scope, bucket: refilled(scope, nowMs) }));
      const short = current.filter(({ bucket }) => bucket.tokens < 1);
      if (short.length > 0) {
        for (const { scope, bucket } of current) buckets.set(scope, bucket);
        // Seconds until every short bucket has one whole token, rounded up so a client that waits exactly that long succeeds.
        let waitMs = 0;
        for (const { scope, bucket } of short) waitMs = Math.max(waitMs, ((1 - bucket.tokens) * 60_000) / rules[scope].perMinute);
        const worst = short.reduce((a, b) => (a.bucket.tokens <= b.bucket.tokens ? a : b));
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), scope: worst.scope };
      }
      for (const { scope, bucket } of current) buckets.set(scope, { tokens: bucket.tokens - 1, atMs: bucket.atMs });
      return { allowed: true };
    },
    reset() {
      buckets.clear();
    },
  };
}
