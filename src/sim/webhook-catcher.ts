/**
 * The demo's webhook catcher: an HTTP receiver on loopback that takes the service's signed
 * webhooks, checks each signature the way a subscriber would, and a page listing what arrived.
 * The check is independent of the signing code where it can be: the `standardwebhooks` library
 * when it is installed (a development dependency), else statuswatch's own verifier.
 */
import { readBoundedBody } from './bounded-body.ts';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../core/webhook-signing.ts';
import { reloadOf, sendCatcherPage, sendNotFound } from './catcher-page.ts';
import { keptList } from './kept-list.ts';
import { type CaughtWebhook, renderWebhookCatcherPage, type SignatureChecker } from './webhook-catcher-page.ts';

export type WebhookCatcherOptions = {
  /** Default 127.0.0.1: the page shows every delivery, so it is not for other machines. */
  host?: string;
  /** Deliveries kept; older ones are dropped (default 200). */
  maxDeliveries?: number;
  /** The kept deliveries' bodies together at most (default 2 MB); older ones are dropped. */
  maxTotalBytes?: number;
  /** A larger body is refused with 413 and not kept (default 256 kB). */
  maxBodyBytes?: number;
  /** How long a delivery that arrives before the secret is known waits for it (default 5 s). */
  secretWaitMs?: number;
  /** Who checks signatures: by default the library when it is installed, else our own verifier. */
  checker?: SignatureChecker['name'];
};

export type RunningWebhookCatcher = {
  /** The URL to subscribe. */
  hookUrl: string;
  /** The page listing what arrived. */
  pageUrl: string;
  /** The subscription's signing secret, as the API showed it once; deliveries are checked against it. */
  trust(secret: string): void;
  /** Oldest first. */
  deliveries(): readonly CaughtWebhook[];
  /** Which checker judges signatures. */
  checker: SignatureChecker['name'];
  close(): Promise<void>;
};

const HOOK_PATH = '/hook';
/** A sender that trickles its request is cut off: nobody holds the catcher's sockets. */
const REQUEST_TIMEOUT_MS = 10_000;

export async function startWebhookCatcher(options: WebhookCatcherOptions = {}): Promise<RunningWebhookCatcher> {
  const { host = '127.0.0.1', maxDeliveries = 200, maxTotalBytes = 2_000_000, maxBodyBytes = 256_000, secretWaitMs = 5_000 } = options;
  const kept = keptList<CaughtWebhook>({ maxItems: maxDeliveries, maxBytes: maxTotalBytes });
  const checker = await signatureChecker(options.checker);
  let secret: string | null = null;
  let secretKnown: () => void = () => {};
  const secretArrives = new Promise<void>((resolve) => (secretKnown = resolve));

  async function receive(req: IncomingMessage): Promise<{ status: number; text: string }> {
    const body = await readBoundedBody(req, maxBodyBytes);
    if (body === null) return { status: 413, text: `body over ${maxBodyBytes} bytes: not kept\n` };
    const receivedAtMs = Date.now();
    if (secret === null) await Promise.race([secretArrives, new Promise((r) => setTimeout(r, secretWaitMs).unref())]);
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : (value ?? '');
    };
    const headers = { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') };
    const verdict = secret === null ? { valid: false, reason: 'the catcher holds no secret to check it with' } : await checker.check(secret, body, headers);
    const caught = { receivedAtMs, id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], body, ...verdict };
    kept.add(caught, Buffer.byteLength(body) + Buffer.byteLength(caught.id) + Buffer.byteLength(caught.timestamp) + Buffer.byteLength(caught.reason));
    // A receiver refuses what it cannot trust: the service's deliveries page shows the refusal.
    return verdict.valid ? { status: 204, text: '' } : { status: 401, text: `signature invalid: ${verdict.reason}\n` };
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === HOOK_PATH) {
      receive(req).then(
        ({ status, text }) =>
          res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: status === 413 ? 'close' : 'keep-alive' }).end(text),
        () => res.destroy(),
      );
      return;
    }
    if (req.method === 'GET' && path === '/') {
      sendCatcherPage(
        res,
        renderWebhookCatcherPage(kept.items(), {
          checker: checker.name,
          maxDeliveries,
          maxTotalBytes,
          keptBytes: kept.bytes(),
          reload: reloadOf(req.url ?? '/'),
        }),
      );
      return;
    }
    sendNotFound(res);
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });

  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return {
    hookUrl: `${origin}${HOOK_PATH}`,
    pageUrl: `${origin}/`,
    checker: checker.name,
    trust(value) {
      secret = value;
      secretKnown();
    },
    deliveries: () => kept.items(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type WebhookHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;
type Checker = SignatureChecker & { check(secret: string, body: string, headers: WebhookHeaders): Promise<{ valid: boolean; reason: string }> };

/** The standardwebhooks library when installed (it is a development dependency), else our own verifier. */
async function signatureChecker(wanted: SignatureChecker['name'] | undefined): Promise<Checker> {
  const library = wanted === 'statuswatch' ? null : await import('standardwebhooks').catch(() => null);
  const Webhook = library?.Webhook;
  if (Webhook) {
    return {
      name: 'standardwebhooks',
      async check(secret, body, headers) {
        try {
          new Webhook(secret).verify(body, headers);
          return { valid: true, reason: '' };
        } catch (error) {
          return { valid: false, reason: error instanceof Error ? error.message : String(error) };
        }
      },
    };
  }
  return {
    name: 'statuswatch',
    async check(secret, body, headers) {
      const valid = await verifyWebhookSignature({
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        secret,
        nowSeconds: Math.floor(Date.now() / 1000),
      }).catch(() => false);
      return { valid, reason: valid ? '' : 'no signature matches, or the timestamp is too far from now' };
    },
  };
}
