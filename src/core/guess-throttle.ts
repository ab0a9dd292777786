/**
 * A pure throttle of admin-token guesses: a short, growing, capped wait after wrong guesses, per
 * address and across all addresses. Never a lockout: a wait lasts seconds, and the right token is
 * accepted as soon as it is over. (Someone at the admin's address who guesses without pause still
 * competes for each slot as it opens; a browser that signed in before has a log of its own.)
 */

/**
 * Up to `freeFailures` wrong guesses within `forgetAfterMs` cost nothing; each one after that
 * makes the next guess wait `firstDelayMs`, doubling, at most `maxDelayMs`, after the last wrong one.
 */
export type GuessRule = { freeFailures: number; firstDelayMs: number; maxDelayMs: number; forgetAfterMs: number };

/** When each wrong guess still remembered happened, oldest first: at most `guessLogLength(rule)` numbers. */
export type GuessLog = readonly number[];

export type GuessLimit = { key: string; rule: GuessRule };

export type GuessDecision = { allowed: true; writes: { key: string; failuresMs: number[]; expiresMs: number }[] } | { allowed: false; retryAfterMs: number };

/**
 * Per client address (or known browser): five typos are free, then waits of 1, 2, 4, 8, 10, 10...
 * seconds, never more. At the cap one address can test 6 guesses a minute. Forgotten after 15
 * minutes without a wrong guess.
 */
export const PER_ADDRESS_GUESSES: GuessRule = { freeFailures: 5, firstDelayMs: 1000, maxDelayMs: 10_000, forgetAfterMs: 15 * 60_000 };

/**
 * Across every address: at most about 10 wrong guesses a second, however many addresses (IPv6 /64s
 * are cheap) an attacker has. Against a 16-character token of even hex digits (16^16 ≈ 1.8e19) that
 * is 1.8e18 s, about 5.8e10 years, to try them all. It also bounds the throttle's rows: only
 * allowed wrong guesses write one, so at most ~10 x 900 keys live at once.
 */
export const ALL_ADDRESSES_GUESSES: GuessRule = { freeFailures: 10, firstDelayMs: 1000, maxDelayMs: 1000, forgetAfterMs: 1000 };

/** How many failures a log keeps: more would not make the wait any longer. */
export function guessLogLength(rule: GuessRule): number {
  return rule.freeFailures + Math.ceil(Math.log2(rule.maxDelayMs / rule.firstDelayMs)) + 1;
}

/** How long to wait before a guess may be checked under one log; 0 means now. */
export function guessWaitMs(log: GuessLog | undefined, rule: GuessRule, now: number): number {
  const recent = remembered(log, rule, now);
  if (recent.length < rule.freeFailures) return 0;
  const delayMs = Math.min(rule.firstDelayMs * 2 ** (recent.length - rule.freeFailures), rule.maxDelayMs);
  return Math.max(0, recent.at(-1)! + delayMs - now);
}

/**
 * Decides one guess whose correctness is already known. The caller checks the token first, in
 * constant time, but answers a refused guess the same whatever it was: a refusal says nothing.
 * Refused guesses record nothing (hammering does not lengthen the wait); allowed wrong guesses are
 * appended to every log; a right one writes nothing.
 */
export function decideGuess(logs: readonly (GuessLog | undefined)[], limits: readonly GuessLimit[], wrong: boolean, now: number): GuessDecision {
  const waitMs = Math.max(0, ...limits.map((limit, i) => guessWaitMs(logs[i], limit.rule, now)));
  if (waitMs > 0) return { allowed: false, retryAfterMs: waitMs };
  if (!wrong) return { allowed: true, writes: [] };
  return {
    allowed: true,
    writes: limits.map(({ key, rule }, i) => ({
      key,
      failuresMs: [...remembered(logs[i], rule, now), now].slice(-guessLogLength(rule)),
      expiresMs: now + rule.forgetAfterMs,
    })),
  };
}

/** Stored logs come back from JSON: keep only numbers still remembered at `now`, in order. */
function remembered(log: GuessLog | undefined, rule: GuessRule, now: number): number[] {
  return (log ?? []).filter((t) => Number.isFinite(t) && now < t + rule.forgetAfterMs).sort((a, b) => a - b);
}
