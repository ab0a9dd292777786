/**
 * Posts one signed webhook to a subscriber with undici and reports the attempt: a timeout over
 * the whole exchange, redirects not followed, a cap on what is read of the answer, and the SSRF
 * guard both before the request and at connect time. The Node form's sender; the Workers form
 * uses fetch-webhook-sender.ts, and both pass test/adapters/webhook-sender-cases.ts.
 */
import { Agent, request } from 'undici';
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import type { Clock, WebhookSender } from '../core/ports.ts';
import { parseRetryAfterMs } from '../core/retry-after.ts';
import { checkWebhookUrl } from '../core/webhook-target.ts';
import { createTextPrefix } from './capped-body.ts';
import { WEBHOOK_EXCERPT_BYTES, WEBHOOK_MAX_RESPONSE_BYTES, WEBHOOK_TIMEOUT_MS, answeredAttempt, describeFailure, startAttempt } from './webhook-attempt.ts';
import { guardedConnector } from './webhook-target-guard.ts';

export { WEBHOOK_EXCERPT_BYTES, WEBHOOK_MAX_RESPONSE_BYTES, WEBHOOK_TIMEOUT_MS } from './webhook-attempt.ts';

export type HttpWebhookSenderOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: lets receivers on private addresses (and plain http) through. */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
  userAgent: string;
  /** Only for tests that simulate DNS (e.g. rebinding); production uses dns.lookup. */
  lookup?: LookupFunction;
  /** For turning a Retry-After date into a delay; defaults to the system clock. */
  clock?: Clock;
};

export function createHttpWebhookSender(options: HttpWebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? WEBHOOK_MAX_RESPONSE_BYTES;
  const clock = options.clock ?? { now: () => Date.now() };
  // One Agent per sender, so connections to a receiver are kept alive between deliveries. Its
  // connector re-checks every address right before connecting.
  const agent = new Agent({
    connect: guardedConnector({ allowPrivate: options.allowPrivate, connectTimeoutMs: timeoutMs, lookup: options.lookup }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  return {
    async send(webhook) {
      const attempt = startAttempt();
      const check = checkWebhookUrl(webhook.url, { allowPrivate: options.allowPrivate });
      if (!check.ok) return attempt.finish({ error: `target refused: ${check.reason}`, permanent: true });

      const signal = deadline(timeoutMs);
      let status: number | null = null;
      let retryAfterMs: number | null = null;
      const excerpt = createTextPrefix(Math.min(webhook.excerptBytes ?? WEBHOOK_EXCERPT_BYTES, maxResponseBytes));
      let location: string | null = null;
      try {
        // undici's request never follows redirects (that takes a redirect interceptor), so a 3xx
        // comes back as it is: a receiver must answer at the URL it registered.
        const response = await request(check.url, {
          dispatcher: agent,
          method: webhook.method ?? 'POST',
          headers: { ...webhook.headers, 'user-agent': options.userAgent },
          body: webhook.body,
          signal,
        });
        status = response.statusCode;
        retryAfterMs = parseRetryAfterMs(headerValue(response.headers['retry-after']), clock.now());
        location = headerValue(response.headers.location);
        await readCapped(response.body, maxResponseBytes, excerpt.add);
      } catch (error) {
        // A body cut short counts as a failed exchange even after a 2xx: the webhook-id lets the
        // receiver drop the duplicate when we try again.
        return attempt.finish({ status, retryAfterMs, responseExcerpt: excerpt.text, ...describeFailure(error, signal, timeoutMs) });
      } finally {
        signal.clear();
      }
      return attempt.finish({ retryAfterMs, responseExcerpt: excerpt.text, ...answeredAttempt(status, location) });
    },
    async close() {
      await agent.destroy();
    },
  };
}

/**
 * An abort signal undici accepts (it takes an EventEmitter as well as an AbortSignal) that fires
 * after `ms`, and whose timer is cleared once the exchange is over. AbortSignal.timeout cost
 * about 28 µs a request on Node 20 and kept its timer for the full 15 s: more than a whole
 * request to a receiver that answers at once.
 */
function deadline(ms: number): EventEmitter & { aborted: boolean; clear(): void } {
  const signal = Object.assign(new EventEmitter(), { aborted: false, clear: () => clearTimeout(timer) });
  const timer = setTimeout(() => {
    signal.aborted = true;
    signal.emit('abort');
  }, ms);
  // Like AbortSignal.timeout's: a pending exchange alone does not keep the process alive.
  timer.unref();
  return signal;
}

type Body = AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };

/** Reads at most `maxBytes` of the answer, then drops the connection rather than download the rest. */
async function readCapped(body: Body, maxBytes: number, onChunk: (chunk: Uint8Array) => void): Promise<void> {
  let total = 0;
  for await (const chunk of body) {
    // What comes past the cap is not ours to keep, even within a chunk already received.
    onChunk(chunk.subarray(0, maxBytes - total));
    total += chunk.byteLength;
    if (total >= maxBytes) {
      body.destroy();
      break;
    }
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
