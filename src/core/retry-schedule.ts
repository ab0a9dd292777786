/**
 * Decides when a failed delivery is tried again, when it is given up as dead, and when a
 * receiver that keeps failing is paused: pure functions over passed-in time and randomness.
 */

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The Standard Webhooks (Svix) schedule, unchanged: attempt 1 goes out immediately, and after a
 * failure of attempt n the delay before attempt n+1 is RETRY_DELAYS_MS[n-1]:
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. That is 8 attempts, with 99,305 s ≈ 27.6 h of delay
 * between the first and the last (22.1 h to 33.1 h once jittered). We keep it rather than stretch
 * it to three days because receivers and their docs already know this schedule, and a receiver
 * that stays down longer is caught by the five-day pause rule below, not by longer retries.
 */
export const RETRY_DELAYS_MS = [5 * SECOND_MS, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS, 10 * HOUR_MS] as const;

/** The first attempt plus one per scheduled delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Each delay is scaled by a factor in [0.8, 1.2), so deliveries that failed together (a receiver
 * outage) do not all come back in the same second when it recovers.
 */
export const RETRY_JITTER_FRACTION = 0.2;

/** A Retry-After longer than this is cut to it, so a receiver cannot park a delivery for ever. */
export const RETRY_AFTER_CAP_MS = 24 * HOUR_MS;

/** How long a subscription may fail without a single success before it is paused. */
export const FIVE_DAYS_MS = 5 * DAY_MS;

export type NextAttemptInput = {
  /** Attempts made so far, including the one that just failed; at least 1. */
  attempt: number;
  now: number;
  /** The receiver's Retry-After as a delay from now (the caller parses seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
  /** Injected so tests are deterministic; called once per retry, must return a value in [0, 1). */
  random: () => number;
  /** When attempt 1 was made; only used to say how long we tried. */
  firstAttemptAt: number;
};

export type NextAttempt = { kind: 'retry'; at: number } | { kind: 'dead'; reason: string };

/** What to do after attempt number `attempt` failed: retry at a time, or give up. */
export function nextAttempt(input: NextAttemptInput): NextAttempt {
  const { attempt, now, retryAfterMs, random, firstAttemptAt } = input;
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new RangeError(`nextAttempt: expected attempt to be a whole number ≥ 1, got ${attempt}`);
  }
  checkTime('now', now);
  checkTime('firstAttemptAt', firstAttemptAt);

  const scheduledMs = RETRY_DELAYS_MS[attempt - 1];
  if (scheduledMs === undefined) {
    return { kind: 'dead', reason: `gave up after ${attempt} attempts over ${formatDuration(now - firstAttemptAt)}` };
  }

  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`nextAttempt: expected random() to return a number in [0, 1), got ${r}`);
  const jitteredMs = Math.round(scheduledMs * (1 + RETRY_JITTER_FRACTION * (2 * r - 1)));

  // Retry-After only ever pushes a retry later: a receiver asking for "now" during an outage
  // would otherwise shrink the backoff for everyone. Nonsense (negative, NaN) is ignored; an
  // absurdly long ask (Infinity included) is cut to the cap.
  const askedMs = retryAfterMs !== null && retryAfterMs > 0 ? Math.min(retryAfterMs, RETRY_AFTER_CAP_MS) : 0;
  return { kind: 'retry', at: now + Math.max(jitteredMs, Math.round(askedMs)) };
}

export type SubscriptionHealthInput = {
  /** When the current unbroken run of failures began (any success resets it), or null when healthy. */
  failingSinceMs: number | null;
  now: number;
};

export type SubscriptionHealth = { kind: 'ok' } | { kind: 'pause'; reason: string };

/**
 * Whether a subscription that keeps failing should be paused (and the admin told) rather than sent
 * to again. A receiver's 410 Gone pauses at once without asking: it is a `gone` outcome (send-outcome.ts).
 */
export function subscriptionHealth(input: SubscriptionHealthInput): SubscriptionHealth {
  const { failingSinceMs, now } = input;
  checkTime('now', now);
  if (failingSinceMs === null) return { kind: 'ok' };
  checkTime('failingSinceMs', failingSinceMs);
  // "Failed continuously for five days" counts from the first failure of the run, inclusive of
  // the exact five-day mark.
  if (now - failingSinceMs >= FIVE_DAYS_MS) {
    return {
      kind: 'pause',
      reason: `failing continuously for ${formatDuration(now - failingSinceMs)} (since ${new Date(failingSinceMs).toISOString()})`,
    };
  }
  return { kind: 'ok' };
}

function checkTime(name: string, ms: number): void {
  if (!Number.isFinite(ms)) throw new RangeError(`expected ${name} to be milliseconds since the epoch, got ${ms}`);
}

/** A human duration for reasons shown to admins: "40 s", "12 min", "27 h", "5.2 d". */
function formatDuration(ms: number): string {
  const safeMs = Math.max(0, ms);
  if (safeMs < MINUTE_MS) return `${Math.round(safeMs / SECOND_MS)} s`;
  if (safeMs < HOUR_MS) return `${Math.round(safeMs / MINUTE_MS)} min`;
  if (safeMs < 3 * DAY_MS) return `${Math.round(safeMs / HOUR_MS)} h`;
  return `${Math.round((safeMs / DAY_MS) * 10) / 10} d`;
}
