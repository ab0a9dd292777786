/** Decides what one delivery attempt means: for the delivery (done, retry, dead) and for its subscription (healthy, failing, paused). */
import type { DeliveryOutcome, SubscriptionHealthChange } from './ports.ts';
import { nextAttempt, subscriptionHealth } from './retry-schedule.ts';

/** One attempt, by any channel, reduced to what the decision needs. */
export type AttemptResult = {
  ok: boolean;
  /** Retrying cannot help: a refused target, an invalid URL, an SMTP 5xx. */
  permanent: boolean;
  /** The receiver says the endpoint is gone (HTTP 410), or the mail server says the address does not exist. */
  gone: boolean;
  goneReason?: string;
  retryAfterMs: number | null;
  /** For the delivery log: what went wrong. */
  error: string;
  /**
   * The delivery must wait until `untilMs` and is not failing: the vendor asked us to (429), or
   * its installation is broken until the admin re-installs. `called`: whether a call was made
   * (an attempt to log) or the wait was known beforehand.
   */
  hold?: { untilMs: number; called: boolean };
};

export type OutcomeInput = {
  result: AttemptResult;
  /** Attempts made so far, including this one. */
  attempt: number;
  now: number;
  firstAttemptAt: number;
  /** The subscription's current run of failures, if it is in one. */
  failingSince: number | null;
  random: () => number;
};

export function decideOutcome(input: OutcomeInput): { outcome: DeliveryOutcome; health: SubscriptionHealthChange } {
  const { result, attempt, now, firstAttemptAt, failingSince, random } = input;
  if (result.ok) return { outcome: { kind: 'done' }, health: { kind: 'succeeded' } };
  if (result.hold)
    return { outcome: { kind: 'held', at: result.hold.untilMs, error: result.error, logged: result.hold.called }, health: { kind: 'unchanged' } };

  const health = subscriptionHealth({ failingSinceMs: failingSince ?? now, now, gone: result.gone });
  const healthChange: SubscriptionHealthChange =
    health.kind === 'pause' ? { kind: 'paused', reason: result.gone && result.goneReason ? result.goneReason : health.reason } : { kind: 'failed' };

  if (result.permanent || result.gone) return { outcome: { kind: 'dead', reason: result.error }, health: healthChange };
  const next = nextAttempt({ attempt, now, retryAfterMs: result.retryAfterMs, random, firstAttemptAt });
  const outcome: DeliveryOutcome =
    next.kind === 'retry' ? { kind: 'retry', at: next.at, error: result.error } : { kind: 'dead', reason: `${result.error}; ${next.reason}` };
  return { outcome, health: healthChange };
}
