/**
 * The behaviour every WebhookSender must have, as one suite that each sender's test file runs
 * with its own factory (as hono's router/common.case.test.ts does for its routers): the undici
 * sender of the Node form and the fetch sender of the Workers form, against real receivers on
 * loopback. Private targets are allowed here; each sender's own file tests its refusals.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock, WebhookSender } from '../../src/core/ports.ts';
import { generateWebhookSecret, webhookHeaders } from '../../src/core/webhook-signing.ts';

export type SenderFactory = (options: {
  allowPrivate: boolean;
  userAgent: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  clock?: Clock;
}) => WebhookSender;

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export type Receiver = {
  url: string;
  port: number;
  /** TCP connections accepted, whatever came over them. */
  connections: number;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; rawHeaderNames: string[]; body: string }[];
  close(): Promise<void>;
};

/** A real HTTP server on loopback that records every request and answers with `handler`. */
export async function startReceiver(handler: Handler, host = '127.0.0.1'): Promise<Receiver> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const rawHeaderNames = req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      receiver.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawHeaderNames, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

const body = JSON.stringify({ type: 'incident.created', data: { incident: { id: '1579' } } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Registers the shared cases for the sender `create` makes. */
export function describeWebhookSender(name: string, create: SenderFactory): void {
  const receivers: Receiver[] = [];
  const senders: WebhookSender[] = [];

  async function receiver(handler: Handler): Promise<Receiver> {
    const started = await startReceiver(handler);
    receivers.push(started);
    return started;
  }

  function sender(options: Partial<Parameters<SenderFactory>[0]> = {}): WebhookSender {
    const created = create({ allowPrivate: true, userAgent: 'statuswatch-test/1', ...options });
    senders.push(created);
    return created;
  }

  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  describe(`${name}: what every webhook sender does`, () => {
    it('delivers a signed webhook that a Standard Webhooks receiver accepts', async () => {
      const secret = generateWebhookSecret();
      const verified: unknown[] = [];
      const target = await receiver((req, res, received) => {
        verified.push(new Webhook(secret).verify(received, req.headers as Record<string, string>));
        res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      });
      const headers = await webhookHeaders({ id: 'msg_1579.r1.created', timestampSeconds: nowSeconds(), body, secrets: [secret] });
      const attempt = await sender().send({ url: `${target.url}/hooks`, headers, body });

      expect(attempt).toMatchObject({ ok: true, status: 200, responseExcerpt: 'thanks', error: null, gone: false, permanent: false, retryAfterMs: null });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(verified).toEqual([JSON.parse(body)]);
      expect(target.requests[0]).toMatchObject({ method: 'POST', path: '/hooks' });
      expect(target.requests[0]?.headers['user-agent']).toBe('statuswatch-test/1');
      expect(target.requests[0]?.headers['content-type']).toBe('application/json');
    });

    it("sends the caller's body byte for byte and invents no content-type", async () => {
      const target = await receiver((_req, res) => res.writeHead(204).end());
      const text = JSON.stringify({ text: 'Überlastung — 中断 🚨', blocks: [] });
      const attempt = await sender().send({ url: target.url, headers: { 'x-statuswatch-test': 'yes' }, body: text });
      expect(attempt).toMatchObject({ ok: true, status: 204, responseExcerpt: '', error: null });
      expect(target.requests[0]?.body).toBe(text);
      expect(target.requests[0]?.headers['x-statuswatch-test']).toBe('yes');
      expect(target.requests[0]?.headers['content-length']).toBe(String(Buffer.byteLength(text)));
      expect(target.requests[0]?.rawHeaderNames).not.toContain('content-type');
    });

    it('edits with PATCH when asked, and keeps as much of the answer as the caller needs', async () => {
      // A chat's message object: its id comes after its embeds, well past the log's 1 KB excerpt.
      const answer = JSON.stringify({ content: 'x'.repeat(3000), id: '1100000000000000001' });
      const target = await receiver((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
      const attempt = await sender().send({
        url: `${target.url}/messages/1`,
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body,
        excerptBytes: 32 * 1024,
      });
      expect(attempt).toMatchObject({ ok: true, status: 200, responseExcerpt: answer });
      expect(target.requests[0]).toMatchObject({ method: 'PATCH', path: '/messages/1', body });
      // Never past the sender's own bound on what it reads.
      const capped = await sender({ maxResponseBytes: 2048 }).send({ url: target.url, headers: {}, body, excerptBytes: 32 * 1024 });
      expect(capped.responseExcerpt.length).toBeLessThanOrEqual(2048);
    });

    it('reports a 500 as a failure worth retrying', async () => {
      const target = await receiver((_req, res) => res.writeHead(500).end('database is down'));
      const attempt = await sender().send({ url: target.url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: 500, error: 'HTTP 500', responseExcerpt: 'database is down', gone: false, permanent: false });
    });

    it('reports a 410 as gone: permanent, the subscription should pause', async () => {
      const target = await receiver((_req, res) => res.writeHead(410).end());
      const attempt = await sender().send({ url: target.url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: 410, error: 'HTTP 410', gone: true, permanent: true });
    });

    it('reads Retry-After as seconds or as an HTTP-date', async () => {
      const nowMs = Date.UTC(2026, 6, 1, 12, 0, 0);
      const target = await receiver((req, res) => {
        if (req.url === '/seconds') res.writeHead(429, { 'retry-after': '7' }).end();
        else res.writeHead(503, { 'retry-after': new Date(nowMs + 120_000).toUTCString() }).end();
      });
      const s = sender({ clock: { now: () => nowMs } });
      expect(await s.send({ url: `${target.url}/seconds`, headers: {}, body })).toMatchObject({ ok: false, status: 429, retryAfterMs: 7000, permanent: false });
      expect(await s.send({ url: `${target.url}/date`, headers: {}, body })).toMatchObject({ ok: false, status: 503, retryAfterMs: 120_000, permanent: false });
    });

    it('does not follow redirects: a 3xx is a failure and its target receives nothing', async () => {
      const elsewhere = await receiver((_req, res) => res.writeHead(200).end('should not be reached'));
      const target = await receiver((req, res) => {
        if (req.url === '/moved') res.writeHead(301, { location: '/elsewhere' }).end();
        else if (req.url === '/found') res.writeHead(302, { location: `${target.url}/elsewhere` }).end();
        else if (req.url === '/temporary') res.writeHead(307, { location: `${elsewhere.url}/in` }).end();
        else res.writeHead(200).end('should not be reached');
      });
      const s = sender();
      const moved = await s.send({ url: `${target.url}/moved`, headers: {}, body });
      expect(moved).toMatchObject({ ok: false, status: 301, error: 'HTTP 301 to /elsewhere: redirects are not followed', permanent: false });
      const found = await s.send({ url: `${target.url}/found`, headers: {}, body });
      expect(found).toMatchObject({ ok: false, status: 302 });
      expect(found.error).toMatch(/redirects are not followed/);
      // 307 keeps the method and the body: followed, it would hand the signed request on.
      const temporary = await s.send({ url: `${target.url}/temporary`, headers: {}, body });
      expect(temporary).toMatchObject({ ok: false, status: 307, error: `HTTP 307 to ${elsewhere.url}/in: redirects are not followed` });
      expect(target.requests.map((r) => r.path)).toEqual(['/moved', '/found', '/temporary']);
      expect(elsewhere.connections).toBe(0);
    });

    it('gives up on a receiver that never answers within the timeout', async () => {
      const target = await receiver(() => {});
      const attempt = await sender({ timeoutMs: 300 }).send({ url: target.url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: null, error: 'no complete answer within 300 ms', permanent: false });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(250);
      expect(attempt.durationMs).toBeLessThan(1500);
    });

    it('counts a body that stalls after a 2xx as an incomplete exchange', async () => {
      const target = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted, but then');
      });
      const attempt = await sender({ timeoutMs: 300 }).send({ url: target.url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: 200, error: 'no complete answer within 300 ms', responseExcerpt: 'accepted, but then' });
    });

    it('reads at most the cap of an endless answer, keeps a 1 KB excerpt, and returns promptly', async () => {
      let closedAfterBytes = -1;
      const target = await receiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'é'.repeat(32 * 1024));
        let written = 0;
        res.on('close', () => (closedAfterBytes = written));
        // Endless: had the sender read it all, the call would only end at the timeout.
        const pump = () => {
          while (!res.destroyed) {
            const more = res.write(chunk);
            written += chunk.byteLength;
            if (!more) return void res.once('drain', pump);
          }
        };
        pump();
      });
      const started = performance.now();
      const attempt = await sender({ timeoutMs: 5000 }).send({ url: target.url, headers: {}, body });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(attempt).toMatchObject({ ok: true, status: 200, error: null });
      // 1 KB of two-byte characters, none cut in half.
      expect(new TextEncoder().encode(attempt.responseExcerpt).byteLength).toBe(1024);
      expect(attempt.responseExcerpt).toBe('é'.repeat(512));
      await expect.poll(() => closedAfterBytes).toBeGreaterThan(0);
      // Far less than the answer would have been by the timeout: the sender stopped reading.
      expect(closedAfterBytes).toBeLessThan(64 * 1024 * 1024);
    });

    it('drops the connection mid-answer past the cap, keeping no byte beyond it', async () => {
      let bigSocketClosed = false;
      const target = await receiver((req, res) => {
        req.socket.once('close', () => {
          bigSocketClosed = true;
        });
        res.writeHead(200).end('x'.repeat(1024 * 1024));
      });
      const big = await sender({ maxResponseBytes: 1000 }).send({ url: `${target.url}/big`, headers: {}, body });
      expect(big).toMatchObject({ ok: true, responseExcerpt: 'x'.repeat(1000) });
      await expect.poll(() => bigSocketClosed).toBe(true);
    });

    it('reports a refused connection without throwing, as worth retrying', async () => {
      const target = await receiver((_req, res) => res.end());
      const url = target.url;
      await target.close();
      const attempt = await sender().send({ url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: null, permanent: false });
      // The wording is the runtime's (Node: "... ECONNREFUSED ...", workerd: "Network connection lost.").
      expect(attempt.error).toEqual(expect.any(String));
      expect(attempt.error).not.toBe('');
    });

    it('refuses an invalid URL for good', async () => {
      expect(await sender().send({ url: 'hooks.example.com/in', headers: {}, body })).toMatchObject({
        ok: false,
        status: null,
        error: 'target refused: not a valid absolute URL',
        permanent: true,
      });
    });

    it('sends nothing once closed, and says so without throwing', async () => {
      const target = await receiver((_req, res) => res.writeHead(200).end('ok'));
      const s = sender();
      await s.close();
      const attempt = await s.send({ url: target.url, headers: {}, body });
      expect(attempt).toMatchObject({ ok: false, status: null, permanent: false });
      expect(attempt.error).not.toBeNull();
      expect(target.connections).toBe(0);
    });
  });
}
