/**
 * Posts one signed webhook to a subscriber with undici and reports the attempt: a timeout over
 * the whole exchange, redirects not followed, a cap on what is read of the answer, and the SSRF
 * guard both before the request and at connect time.
 */
import { Agent, request } from 'undici';
import type { LookupFunction } from 'node:net';
import type { Clock, WebhookAttempt, WebhookSender } from '../core/ports.ts';
import { WEBHOOK_TARGET_REFUSED, checkWebhookUrl, guardedConnector } from './webhook-target-guard.ts';

export const WEBHOOK_TIMEOUT_MS = 15_000;
export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of the answer is kept in the delivery log. */
export const WEBHOOK_EXCERPT_BYTES = 1024;
const MAX_LOCATION_CHARS = 200;

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
      const started = performance.now();
      const attempt = (fields: Partial<WebhookAttempt>): WebhookAttempt => ({
        ok: false,
        status: null,
        durationMs: Math.round(performance.now() - started),
        responseExcerpt: '',
        retryAfterMs: null,
        error: null,
        gone: false,
        permanent: false,
        ...fields,
      });

      const check = checkWebhookUrl(webhook.url, { allowPrivate: options.allowPrivate });
      if (!check.ok) return attempt({ error: `target refused: ${check.reason}`, permanent: true });

      const signal = AbortSignal.timeout(timeoutMs);
      let status: number | null = null;
      let retryAfterMs: number | null = null;
      const answer = { excerpt: '' };
      let location: string | null = null;
      try {
        // undici's request never follows redirects (that takes a redirect interceptor), so a 3xx
        // comes back as it is: a receiver must answer at the URL it registered.
        const response = await request(check.url, {
          dispatcher: agent,
          method: 'POST',
          headers: { ...webhook.headers, 'user-agent': options.userAgent },
          body: webhook.body,
          signal,
        });
        status = response.statusCode;
        retryAfterMs = parseRetryAfterMs(headerValue(response.headers['retry-after']), clock.now());
        location = headerValue(response.headers.location);
        await readExcerpt(response.body, maxResponseBytes, answer);
      } catch (error) {
        // A body cut short counts as a failed exchange even after a 2xx: the webhook-id lets the
        // receiver drop the duplicate when we try again.
        return attempt({
          status,
          retryAfterMs,
          responseExcerpt: answer.excerpt,
          ...describeFailure(error, signal, timeoutMs),
        });
      }

      const success = status >= 200 && status < 300;
      return attempt({
        ok: success,
        status,
        retryAfterMs,
        responseExcerpt: answer.excerpt,
        error: success ? null : statusError(status, location),
        gone: status === 410,
        permanent: status === 410,
      });
    },
    async close() {
      await agent.destroy();
    },
  };
}

function statusError(status: number, location: string | null): string {
  if (status < 300 || status >= 400) return `HTTP ${status}`;
  const to = location ? ` to ${location.slice(0, MAX_LOCATION_CHARS)}` : '';
  return `HTTP ${status}${to}: redirects are not followed`;
}

type Body = AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };

/**
 * Reads at most `maxBytes` of the answer, then stops and drops the connection rather than
 * download the rest; keeps the first WEBHOOK_EXCERPT_BYTES as text in `into`, as it comes, so a
 * body that stalls still leaves what it said.
 */
async function readExcerpt(body: Body, maxBytes: number, into: { excerpt: string }): Promise<void> {
  // Streaming decode without a final flush: a character cut by the excerpt's end is dropped,
  // not turned into U+FFFD.
  const decoder = new TextDecoder('utf-8');
  let excerptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    if (excerptBytes < WEBHOOK_EXCERPT_BYTES) {
      const part = chunk.subarray(0, WEBHOOK_EXCERPT_BYTES - excerptBytes);
      into.excerpt += decoder.decode(part, { stream: true });
      excerptBytes += part.byteLength;
    }
    total += chunk.byteLength;
    if (total >= maxBytes) {
      body.destroy();
      break;
    }
  }
}

function describeFailure(error: unknown, signal: AbortSignal, timeoutMs: number): Pick<WebhookAttempt, 'error' | 'permanent'> {
  if (signal.aborted) return { error: `no complete answer within ${timeoutMs} ms`, permanent: false };
  const code = errorCode(error);
  if (code === WEBHOOK_TARGET_REFUSED) return { error: messageOf(error), permanent: true };
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return { error: `${messageOf(error)}${cause}${code && !messageOf(error).includes(code) ? ` (${code})` : ''}`, permanent: false };
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

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * Retry-After as a delay in ms: a whole number of seconds, or an HTTP-date (a date in the past
 * means now). Null when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // Only dates that look like dates: Date.parse would otherwise accept things like "1".
  if (!/[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
