/**
 * Posts one signed webhook to a subscriber with undici and reports the attempt: a timeout over
 * the whole exchange, redirects not followed, a cap on what is read of the answer, and the SSRF
 * guard both before the request and at connect time. The Node form's sender; the Workers form
 * uses fetch-webhook-sender.ts, and both pass test/adapters/webhook-sender-cases.ts.
 */
import { Agent, type Dispatcher, util } from 'undici';
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

      const excerpt = createTextPrefix(Math.min(webhook.excerptBytes ?? WEBHOOK_EXCERPT_BYTES, maxResponseBytes));
      const url = check.url;
      const answer = await exchange(
        agent,
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: webhook.method ?? 'POST',
          headers: { ...webhook.headers, 'user-agent': options.userAgent },
          body: webhook.body,
        },
        { timeoutMs, maxResponseBytes, onChunk: excerpt.add },
      );
      const { status, failure } = answer;
      const retryAfterMs = parseRetryAfterMs(answer.retryAfter, clock.now());
      // A body cut short counts as a failed exchange even after a 2xx: the webhook-id lets the
      // receiver drop the duplicate when we try again.
      if (failure !== null || status === null) {
        return attempt.finish({ status, retryAfterMs, responseExcerpt: excerpt.text, ...describeFailure(failure, { aborted: answer.timedOut }, timeoutMs) });
      }
      return attempt.finish({ retryAfterMs, responseExcerpt: excerpt.text, ...answeredAttempt(status, answer.location) });
    },
    async close() {
      await agent.destroy();
    },
  };
}

type ExchangeLimits = { timeoutMs: number; maxResponseBytes: number; onChunk: (chunk: Uint8Array) => void };

/** How an exchange ended: `failure` null when a final answer came in whole or up to the cap. */
type Exchange = { status: number | null; retryAfter: string | null; location: string | null; failure: unknown; timedOut: boolean };

/**
 * One request through the agent's own dispatch, with a handler that reads the answer as it comes:
 * a timer over the whole exchange aborts it, and the answer is read up to the cap, then the
 * connection dropped rather than the rest downloaded. undici's `request` puts a stream, an abort
 * signal and an async iterator between the socket and this: together a quarter of a delivery's
 * own cost. Never rejects; every way it ends settles it once, and the timer is cleared then.
 * undici's dispatch never follows redirects (that takes a redirect interceptor), so a 3xx comes
 * back as it is: a receiver must answer at the URL it registered.
 */
function exchange(agent: Agent, request: Dispatcher.DispatchOptions, limits: ExchangeLimits): Promise<Exchange> {
  return new Promise((resolve) => {
    const result: Exchange = { status: null, retryAfter: null, location: null, failure: null, timedOut: false };
    let abort: ((reason?: Error) => void) | null = null;
    let settled = false;
    let receivedBytes = 0;
    const settle = (failure: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      result.failure = failure;
      resolve(result);
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      const reason = new Error(`no complete answer within ${limits.timeoutMs} ms`);
      abort?.(reason);
      settle(reason);
    }, limits.timeoutMs);
    // A pending exchange alone does not keep the process alive.
    timer.unref();
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        if (settled) abortRequest(new Error('the exchange is over'));
        else abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders) {
        // A 1xx is interim: the final answer follows.
        if (statusCode < 200) return true;
        result.status = statusCode;
        for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
          const name = util.headerNameToString(rawHeaders[i]!);
          // The first of a repeated header, as headers are read elsewhere.
          if (name === 'retry-after') result.retryAfter ??= rawHeaders[i + 1]!.toString('latin1');
          else if (name === 'location') result.location ??= rawHeaders[i + 1]!.toString('latin1');
        }
        return true;
      },
      onData(chunk) {
        if (settled) return false;
        // What comes past the cap is not ours to keep, even within a chunk already received.
        limits.onChunk(chunk.subarray(0, limits.maxResponseBytes - receivedBytes));
        receivedBytes += chunk.byteLength;
        if (receivedBytes < limits.maxResponseBytes) return true;
        settle(null);
        abort?.(new Error('the answer reached the cap'));
        return false;
      },
      onComplete() {
        settle(result.status === null ? new Error('the receiver closed without an answer') : null);
      },
      onError(error) {
        settle(error);
      },
    };
    agent.dispatch(request, handler);
  });
}
