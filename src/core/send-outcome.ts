/**
 * How one send ended, by any channel: exactly one of five outcomes, each with only the fields it
 * can have, so no sender can say "sent" and "gone" at once. Every sender builds its outcome with
 * the constructors below; the deliverer turns it into what it records (delivery-outcome.ts).
 */
import type { MailResult, WebhookAttempt } from './ports/senders.ts';

/** What the receiver answered, for the attempt log: its status code (null without one) and the start of its answer. */
export type SendAnswer = { status: number | null; excerpt: string };

export type SendOutcome = SendAnswer &
  (
    | { kind: 'sent' }
    /** Failed for now; `retryAfterMs`: the receiver asked for this delay (Retry-After), null to follow the schedule. */
    | { kind: 'retry'; error: string; retryAfterMs: number | null }
    /** The target no longer takes messages (HTTP 410, an address the mail server refused, a deleted conversation): the subscription is paused for `reason`. */
    | { kind: 'gone'; error: string; reason: string }
    /** Retrying cannot help this delivery (a refused target, an invalid URL, a 5xx for the message): it is given up. */
    | { kind: 'refused'; error: string }
    /**
     * Not failing, and not sent: the delivery waits until `untilMs` (the vendor asked for it, an
     * installation is broken until the admin re-installs, a group's list is being read). `called`:
     * whether a call was made (an attempt to log) or the wait was known beforehand.
     */
    | { kind: 'held'; untilMs: number; called: boolean; error: string }
  );

export function sent(status: number | null, excerpt: string): SendOutcome {
  return { kind: 'sent', status, excerpt };
}

export function retry(error: string, answer: Partial<SendAnswer> & { retryAfterMs?: number | null } = {}): SendOutcome {
  return { kind: 'retry', error, retryAfterMs: answer.retryAfterMs ?? null, ...answerOf(answer) };
}

export function gone(error: string, reason: string, answer: Partial<SendAnswer> = {}): SendOutcome {
  return { kind: 'gone', error, reason, ...answerOf(answer) };
}

export function refused(error: string, answer: Partial<SendAnswer> = {}): SendOutcome {
  return { kind: 'refused', error, ...answerOf(answer) };
}

export function heldUntil(untilMs: number, called: boolean, error: string, answer: Partial<SendAnswer> = {}): SendOutcome {
  return { kind: 'held', untilMs, called, error, ...answerOf(answer) };
}

/** A failure that may pass (retried) or cannot (refused). */
export function failed(error: string, permanent: boolean, answer: Partial<SendAnswer> = {}): SendOutcome {
  return permanent ? refused(error, answer) : retry(error, answer);
}

function answerOf(answer: Partial<SendAnswer>): SendAnswer {
  return { status: answer.status ?? null, excerpt: answer.excerpt ?? '' };
}

/** One webhook request's attempt (a signed webhook, or a team chat's incoming webhook). */
export function outcomeOfWebhookAttempt(attempt: WebhookAttempt): SendOutcome {
  const answer = { status: attempt.status, excerpt: attempt.responseExcerpt };
  if (attempt.ok) return sent(attempt.status, attempt.responseExcerpt);
  const error = attempt.error ?? (attempt.status !== null ? `HTTP ${attempt.status}` : 'no answer');
  if (attempt.gone) return gone(error, 'the receiver answered 410 Gone', answer);
  if (attempt.permanent) return refused(error, answer);
  return retry(error, { ...answer, retryAfterMs: attempt.retryAfterMs });
}

/** One mail's send to one recipient. */
export function outcomeOfMail(result: MailResult): SendOutcome {
  // 250: the SMTP code of an accepted message, whichever way it went out.
  if (result.ok) return sent(250, result.response);
  const answer = { status: result.code, excerpt: result.response };
  const error = `SMTP ${result.code ?? result.kind}: ${result.response}`;
  // A 5xx for the recipient: the address is suppressed (the subscription paused) and says so.
  if (result.kind === 'recipient_rejected') return gone(error, `the mail server refused the address: ${result.response}`, answer);
  return failed(error, !result.retryable, answer);
}
