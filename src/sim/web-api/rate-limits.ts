/** Per-method rate limits a test sets: past them a call answers 429 with Retry-After, as the spec's "Rate limit exceeded" says. */
import { createMemoryLimiter, type LimitRule, type MemoryLimiter } from '../../core/rate-limit.ts';

/** Callers (workspace or client id) tracked per limited method; the least recent are forgotten past it. */
const KEYS_PER_METHOD_MAX = 10_000;
/** Methods that may carry a rule: the known ones, plus '*'. */
export const RATE_LIMIT_RULES_MAX = 50;

export type RateLimitRule = LimitRule & { method: string };

export type RateLimits = {
  /** False when RATE_LIMIT_RULES_MAX methods have rules already. */
  set(rule: RateLimitRule): boolean;
  clear(): void;
  list(): RateLimitRule[];
  /** 0 when the call may go ahead, else the seconds to wait (at least 1). */
  check(method: string, callerKey: string, nowMs: number): number;
};

export function createRateLimits(): RateLimits {
  const rules = new Map<string, { rule: RateLimitRule; limiter: MemoryLimiter }>();
  return {
    set(rule) {
      if (!rules.has(rule.method) && rules.size >= RATE_LIMIT_RULES_MAX) return false;
      rules.set(rule.method, { rule, limiter: createMemoryLimiter(rule, KEYS_PER_METHOD_MAX) });
      return true;
    },
    clear: () => rules.clear(),
    list: () => [...rules.values()].map((r) => ({ ...r.rule })),
    check(method, callerKey, nowMs) {
      let waitMs = 0;
      // A method's own rule and the '*' rule both apply, each counting its own calls.
      for (const entry of [rules.get(method), rules.get('*')]) {
        if (!entry) continue;
        const decision = entry.limiter.hit(`${method} ${callerKey}`, nowMs);
        if (!decision.allowed) waitMs = Math.max(waitMs, decision.retryAfterMs);
      }
      return waitMs === 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
    },
  };
}
