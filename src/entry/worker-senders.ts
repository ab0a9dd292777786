/**
 * How a Worker sends webhooks and mail, in one place so the entry stays the same when the senders
 * change. Web-standard only: fetch, URL, AbortSignal. Mail is off on Workers until an HTTP mail
 * API adapter is wired here (SMTP needs sockets a Worker does not have).
 */
import type { Config } from '../config.ts';
import type { Mailer, WebhookAttempt, WebhookSender } from '../core/ports.ts';

export const WORKER_USER_AGENT = 'statuswatch/0.1 (self-hosted status feed monitor; Workers)';
/** As on Node: long enough for a slow receiver, short enough to stay well inside an invocation. */
export const WORKER_WEBHOOK_TIMEOUT_MS = 15_000;
/** How much of an answer is kept in the delivery log, as on Node. */
const EXCERPT_BYTES = 1024;

export type WorkerSenders = { webhooks: WebhookSender; mailer: Mailer | null };

export function createWorkerSenders(config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE'>): WorkerSenders {
  return { webhooks: createFetchWebhookSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, userAgent: WORKER_USER_AGENT }), mailer: null };
}

/**
 * Whether a subscriber's URL may be called from a Worker, judged without I/O: https (http too with
 * WEBHOOK_ALLOW_PRIVATE), no credentials, and, unless private targets are allowed, no IP literal and
 * no loopback name. A Worker cannot resolve a name before fetch does, so names are not judged.
 */
export function checkWorkerWebhookUrl(url: string, options: { allowPrivate: boolean }): { ok: true; url: URL } | { ok: false; reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (parsed.protocol !== 'https:' && !(options.allowPrivate && parsed.protocol === 'http:')) {
    return { ok: false, reason: `scheme ${parsed.protocol} is not allowed: expected ${options.allowPrivate ? 'https: or http:' : 'https:'}` };
  }
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'credentials in the URL are not allowed' };
  if (options.allowPrivate) return { ok: true, url: parsed };
  const host = parsed.hostname.replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: `${host} is a loopback name` };
  // The WHATWG parser has already turned every IPv4 notation into dotted decimal.
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[')) return { ok: false, reason: `address ${host}: IP literals are refused unless WEBHOOK_ALLOW_PRIVATE is set` };
  return { ok: true, url: parsed };
}

/** POSTs the signed request as it is (the caller made the headers), never following a redirect. */
function createFetchWebhookSender(options: { allowPrivate: boolean; userAgent: string; timeoutMs?: number }): WebhookSender {
  const timeoutMs = options.timeoutMs ?? WORKER_WEBHOOK_TIMEOUT_MS;
  return {
    async send(webhook) {
      const started = Date.now();
      const attempt = (fields: Partial<WebhookAttempt>): WebhookAttempt => ({
        ok: false,
        status: null,
        durationMs: Date.now() - started,
        responseExcerpt: '',
        retryAfterMs: null,
        error: null,
        gone: false,
        permanent: false,
        ...fields,
      });
      const check = checkWorkerWebhookUrl(webhook.url, options);
      if (!check.ok) return attempt({ error: `target refused: ${check.reason}`, permanent: true });
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const response = await fetch(check.url, {
          method: 'POST',
          headers: { ...webhook.headers, 'user-agent': options.userAgent },
          body: webhook.body,
          redirect: 'manual',
          signal,
        });
        const excerpt = await readExcerpt(response);
        const status = response.status;
        const ok = status >= 200 && status < 300;
        const retryAfter = response.headers.get('retry-after');
        return attempt({
          ok,
          status,
          responseExcerpt: excerpt,
          retryAfterMs: retryAfter !== null && /^\d{1,10}$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) * 1000 : null,
          error: ok ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`,
          gone: status === 410,
          permanent: status === 410,
        });
      } catch (error) {
        if (signal.aborted) return attempt({ error: `no complete answer within ${timeoutMs} ms` });
        return attempt({ error: error instanceof Error ? error.message : String(error) });
      }
    },
    async close() {},
  };
}

/** The first KB of the answer as text; the rest is not downloaded. */
async function readExcerpt(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let bytes = 0;
  try {
    while (bytes < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, EXCERPT_BYTES - bytes);
      text += decoder.decode(part, { stream: true });
      bytes += part.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text;
}
