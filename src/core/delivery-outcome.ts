/** Decides what one delivery attempt means: for the delivery (done, retry, dead) and for its subscription (healthy, failing, paused). */
import type { DeliveryAttemptRecord, DeliveryOutcome, SubscriptionHealthChange } from './ports.ts';
import { nextAttempt, subscriptionHealth } from './retry-schedule.ts';
import type { SendOutcome } from './send-outcome.ts';

/**
 * A healthy subscription's last success is written at most once a minute: the value shown is a
 * success at that time, and the latest may be up to this much later. Rewriting it on every
 * delivery was a third of the rows each attempt wrote, for a time nobody reads to the second.
 */
export const LAST_SUCCESS_STEP_MS = 60_000;

export type OutcomeInput = {
  result: SendOutcome;
  /** Attempts made so far, including this one. */
  attempt: number;
  now: number;
  firstAttemptAt: number;
  /** The subscription's current run of failures, if it is in one. */
  failingSince: number | null;
  /** When the subscription's last success was recorded; null: none yet. */
  lastSuccessAt: number | null;
  random: () => number;
};

export function decideOutcome(input: OutcomeInput): { outcome: DeliveryOutcome; health: SubscriptionHealthChange } {
  const { result, attempt, now, firstAttemptAt, failingSince, lastSuccessAt, random } = input;
  switch (result.kind) {
    case 'sent': {
      const recent = failingSince === null && lastSuccessAt !== null && now - lastSuccessAt < LAST_SUCCESS_STEP_MS;
      return { outcome: { kind: 'done' }, health: { kind: recent ? 'unchanged' : 'succeeded' } };
    }
    case 'held':
      return { outcome: { kind: 'held', at: result.untilMs, error: result.error, logged: result.called }, health: { kind: 'unchanged' } };
    case 'gone':
      return { outcome: { kind: 'dead', reason: result.error }, health: { kind: 'paused', reason: result.reason } };
    case 'refused':
      return { outcome: { kind: 'dead', reason: result.error }, health: failingHealth(failingSince ?? now, now) };
    case 'retry': {
      const next = nextAttempt({ attempt, now, retryAfterMs: result.retryAfterMs, random, firstAttemptAt });
      const outcome: DeliveryOutcome =
        next.kind === 'retry' ? { kind: 'retry', at: next.at, error: result.error } : { kind: 'dead', reason: `${result.error}; ${next.reason}` };
      return { outcome, health: failingHealth(failingSince ?? now, now) };
    }
  }
}

/** A failed attempt: the subscription is failing, and paused once it has failed for too long. */
function failingHealth(failingSinceMs: number, now: number): SubscriptionHealthChange {
  const health = subscriptionHealth({ failingSinceMs, now });
  return health.kind === 'pause' ? { kind: 'paused', reason: health.reason } : { kind: 'failed' };
}

/** The attempt as the delivery log keeps it. */
export function attemptRecordOf(result: SendOutcome, attemptedAt: number, durationMs: number, excerptMaxChars: number): DeliveryAttemptRecord {
  return {
    attemptedAt,
    ok: result.kind === 'sent',
    status: result.status,
    durationMs,
    responseExcerpt: result.excerpt.slice(0, excerptMaxChars),
    error: result.kind === 'sent' ? null : result.error,
  };
}
