/**
 * Posts one signed webhook with the Web-standard fetch, for the Workers form (no undici, no DNS
 * lookup, no connect hook there). It behaves as http-webhook-sender.ts does (both pass
 * test/adapters/webhook-sender-cases.ts); the target is judged on the URL alone, so IP literals
 * and private names are refused before any request.
 */
import type { Clock, WebhookSender } from '../core/ports.ts';
import { parseRetryAfterMs } from '../core/retry-after.ts';
import { checkWebhookUrl, type UrlCheck } from '../core/webhook-target.ts';
import { createTextPrefix, readCappedBody } from './capped-body.ts';
import { WEBHOOK_EXCERPT_BYTES, WEBHOOK_MAX_RESPONSE_BYTES, WEBHOOK_TIMEOUT_MS, answeredAttempt, describeFailure, startAttempt } from './webhook-attempt.ts';

export type FetchWebhookSenderOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: lets private names, IP literals and plain http through. */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  userAgent: string;
  /** For turning a Retry-After date into a delay; defaults to the system clock. */
  clock?: Clock;
};

/**
 * The URL rules where nothing checks the address connected to: what the Workers form's
 * subscription service must use too, so a URL accepted there is one this sender will call.
 */
export function checkWebhookUrlWithoutDns(url: string, options: { allowPrivate: boolean }): UrlCheck {
  return checkWebhookUrl(url, { allowPrivate: options.allowPrivate, ipLiterals: 'refuse' });
}

export function createFetchWebhookSender(options: FetchWebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? WEBHOOK_MAX_RESPONSE_BYTES;
  const clock = options.clock ?? { now: () => Date.now() };
  const encoder = new TextEncoder();
  // Only plain values live across sends: on Workers an I/O object (an AbortController, a stream)
  // made while handling one request cannot be used while handling another, and an entry may well
  // make the sender once and use it for every cron run and queue batch.
  let closed = false;

  return {
    async send(webhook) {
      const attempt = startAttempt();
      const check = checkWebhookUrlWithoutDns(webhook.url, { allowPrivate: options.allowPrivate });
      if (!check.ok) return attempt.finish({ error: `target refused: ${check.reason}`, permanent: true });
      if (closed) return attempt.finish({ error: 'the webhook sender is closed' });

      const timeout = AbortSignal.timeout(timeoutMs);
      let status: number | null = null;
      let retryAfterMs: number | null = null;
      const excerpt = createTextPrefix(Math.min(webhook.excerptBytes ?? WEBHOOK_EXCERPT_BYTES, maxResponseBytes));
      try {
        const response = await fetch(check.url, {
          method: webhook.method ?? 'POST',
          headers: { ...webhook.headers, 'user-agent': options.userAgent },
          // Bytes, not a string: fetch would add "content-type: text/plain" to a string body,
          // and the receiver must get the caller's headers only, as from the undici sender.
          body: encoder.encode(webhook.body),
          // A 3xx comes back as it is: a receiver must answer at the URL it registered, and a
          // redirect must not carry the signed request to a target never checked.
          redirect: 'manual',
          signal: timeout,
        });
        status = response.status;
        retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), clock.now());
        const location = response.headers.get('location');
        await readCappedBody(response.body, maxResponseBytes, excerpt.add);
        return attempt.finish({ retryAfterMs, responseExcerpt: excerpt.text, ...answeredAttempt(status, location) });
      } catch (error) {
        // A body cut short counts as a failed exchange even after a 2xx: the webhook-id lets the
        // receiver drop the duplicate when we try again.
        return attempt.finish({ status, retryAfterMs, responseExcerpt: excerpt.text, ...describeFailure(error, timeout, timeoutMs) });
      }
    },
    async close() {
      // Sends already under way end by themselves, within the timeout; fetch pools nothing of ours.
      closed = true;
    },
  };
}
