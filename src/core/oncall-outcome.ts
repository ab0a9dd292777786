/**
 * How an on-call tool's answer becomes a SendOutcome. Both tools follow one rule: a 429 or a 5xx
 * (or no answer) is retried, honouring Retry-After; a refused key pauses the subscription with the
 * tool's own words, since every later delivery would be refused too; any other refusal gives up
 * the delivery, since sending the same event again cannot change the answer.
 */
import type { WebhookAttempt } from './ports.ts';
import { gone, refused, retry, sent, type SendOutcome } from './send-outcome.ts';

export type OnCallTool = {
  /** As people know it: `PagerDuty`, `Opsgenie`. */
  name: string;
  /** The tool's error body as one line. */
  errorText: (excerpt: string) => string;
  /** Whether this answer says the key itself is refused (so the subscription, not the delivery, is at fault). */
  refusesKey: (status: number | null, excerpt: string) => boolean;
};

/** 401 and 403 refuse the caller; Opsgenie answers 422 to a key of the wrong shape. */
const KEY_REFUSED_STATUSES = new Set([401, 403]);

export function outcomeOfOnCallAttempt(attempt: WebhookAttempt, tool: OnCallTool): SendOutcome {
  const answer = { status: attempt.status, excerpt: attempt.responseExcerpt };
  if (attempt.ok) return sent(attempt.status, attempt.responseExcerpt);
  const status = attempt.status;
  const said = status !== null && attempt.responseExcerpt !== '' ? tool.errorText(attempt.responseExcerpt) : '';
  const error = `${tool.name} ${status !== null ? `HTTP ${status}` : 'gave no answer'}${said ? `: ${said}` : attempt.error && status === null ? `: ${attempt.error}` : ''}`;
  if (attempt.gone) return gone(error, `${tool.name} answered 410 Gone`, answer);
  if (attempt.permanent) return refused(attempt.error ?? error, answer);
  if (status === null || status === 429 || status >= 500) return retry(error, { ...answer, retryAfterMs: attempt.retryAfterMs });
  if (KEY_REFUSED_STATUSES.has(status) || tool.refusesKey(status, attempt.responseExcerpt)) {
    return gone(error, `${tool.name} refused the key${said ? `: ${said}` : ` (HTTP ${status})`}`, answer);
  }
  // A redirect is not followed (a moved API is a setting to fix); another 4xx refuses this event.
  return refused(error, answer);
}
