/**
 * What both webhook senders (undici on Node, fetch on Workers) share: the limits, and how an
 * answer or a failure becomes the WebhookAttempt the delivery log keeps. Web-standard only.
 */
import type { WebhookAttempt } from '../core/ports.ts';
import { WEBHOOK_TARGET_REFUSED } from '../core/webhook-target.ts';

export const WEBHOOK_TIMEOUT_MS = 15_000;
export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of the answer is kept in the delivery log. */
export const WEBHOOK_EXCERPT_BYTES = 1024;
const MAX_LOCATION_CHARS = 200;

/** Starts the clock of one attempt; `finish` fills in what was not said and the duration. */
export function startAttempt(): { finish(fields: Partial<WebhookAttempt>): WebhookAttempt } {
  const started = performance.now();
  return {
    finish: (fields) => ({
      ok: false,
      status: null,
      durationMs: Math.round(performance.now() - started),
      responseExcerpt: '',
      retryAfterMs: null,
      error: null,
      gone: false,
      permanent: false,
      ...fields,
    }),
  };
}

/** A complete answer: only a 2xx is a success; a 410 pauses the subscription for good. */
export function answeredAttempt(status: number, location: string | null): Pick<WebhookAttempt, 'ok' | 'status' | 'error' | 'gone' | 'permanent'> {
  const success = status >= 200 && status < 300;
  return { ok: success, status, error: success ? null : statusError(status, location), gone: status === 410, permanent: status === 410 };
}

function statusError(status: number, location: string | null): string {
  if (status < 300 || status >= 400) return `HTTP ${status}`;
  const to = location ? ` to ${location.slice(0, MAX_LOCATION_CHARS)}` : '';
  return `HTTP ${status}${to}: redirects are not followed`;
}

/** Why no complete answer came: the timeout, a refused target (permanent), or the network. */
export function describeFailure(error: unknown, signal: { readonly aborted: boolean }, timeoutMs: number): Pick<WebhookAttempt, 'error' | 'permanent'> {
  if (signal.aborted) return { error: `no complete answer within ${timeoutMs} ms`, permanent: false };
  const code = errorCode(error);
  if (code === WEBHOOK_TARGET_REFUSED) return { error: messageOf(error), permanent: true };
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return { error: `${messageOf(error)}${cause}${code && !`${messageOf(error)}${cause}`.includes(code) ? ` (${code})` : ''}`, permanent: false };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect reports an AggregateError of the per-address failures.
  if (error instanceof AggregateError) return error.errors.map(errorCode).find((c) => c !== undefined);
  return errorCode((error as { cause?: unknown }).cause);
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(messageOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}
