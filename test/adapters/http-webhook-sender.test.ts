import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpWebhookSender, parseRetryAfterMs } from '../../src/adapters/http-webhook-sender.ts';
import type { WebhookSender } from '../../src/core/ports.ts';
import { generateWebhookSecret, webhookHeaders } from '../../src/core/webhook-signing.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

type Receiver = {
  url: string;
  port: number;
  /** TCP connections accepted, whatever came over them. */
  connections: number;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
};

const open: Receiver[] = [];
const senders: WebhookSender[] = [];

async function startReceiver(handler: Handler, host = '127.0.0.1'): Promise<Receiver> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
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
  open.push(receiver);
  return receiver;
}

function sender(options: Partial<Parameters<typeof createHttpWebhookSender>[0]> = {}): WebhookSender {
  const created = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test/1', ...options });
  senders.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const body = JSON.stringify({ type: 'incident.created', data: { incident: { id: '1579' } } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('http webhook sender', () => {
  it('delivers a signed webhook that a Standard Webhooks receiver accepts', async () => {
    const secret = generateWebhookSecret();
    const verified: unknown[] = [];
    const receiver = await startReceiver((req, res, received) => {
      verified.push(new Webhook(secret).verify(received, req.headers as Record<string, string>));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
    const headers = await webhookHeaders({ id: 'msg_1579.r1.created', timestampSeconds: nowSeconds(), body, secrets: [secret] });
    const attempt = await sender().send({ url: `${receiver.url}/hooks`, headers, body });

    expect(attempt).toMatchObject({ ok: true, status: 200, responseExcerpt: 'thanks', error: null, gone: false, permanent: false, retryAfterMs: null });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(verified).toEqual([JSON.parse(body)]);
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/hooks' });
    expect(receiver.requests[0]?.headers['user-agent']).toBe('statuswatch-test/1');
    expect(receiver.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('reports a 500 as a failure worth retrying', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end('database is down'));
    const attempt = await sender().send({ url: receiver.url, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: 500, error: 'HTTP 500', responseExcerpt: 'database is down', gone: false, permanent: false });
  });

  it('reports a 410 as gone: permanent, the subscription should pause', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(410).end());
    const attempt = await sender().send({ url: receiver.url, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: 410, error: 'HTTP 410', gone: true, permanent: true });
  });

  it('reads Retry-After as seconds or as an HTTP-date', async () => {
    const nowMs = Date.UTC(2026, 6, 1, 12, 0, 0);
    const receiver = await startReceiver((req, res) => {
      if (req.url === '/seconds') res.writeHead(429, { 'retry-after': '7' }).end();
      else res.writeHead(503, { 'retry-after': new Date(nowMs + 120_000).toUTCString() }).end();
    });
    const s = sender({ clock: { now: () => nowMs } });
    expect(await s.send({ url: `${receiver.url}/seconds`, headers: {}, body })).toMatchObject({ ok: false, status: 429, retryAfterMs: 7000, permanent: false });
    expect(await s.send({ url: `${receiver.url}/date`, headers: {}, body })).toMatchObject({ ok: false, status: 503, retryAfterMs: 120_000, permanent: false });
  });

  it('does not follow redirects: a 3xx is a failure and its target receives nothing', async () => {
    const receiver = await startReceiver((req, res) => {
      if (req.url === '/moved') res.writeHead(301, { location: '/elsewhere' }).end();
      else if (req.url === '/found') res.writeHead(302, { location: `${receiver.url}/elsewhere` }).end();
      else res.writeHead(200).end('should not be reached');
    });
    const s = sender();
    const moved = await s.send({ url: `${receiver.url}/moved`, headers: {}, body });
    expect(moved).toMatchObject({ ok: false, status: 301, error: 'HTTP 301 to /elsewhere: redirects are not followed', permanent: false });
    const found = await s.send({ url: `${receiver.url}/found`, headers: {}, body });
    expect(found).toMatchObject({ ok: false, status: 302 });
    expect(found.error).toMatch(/redirects are not followed/);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/moved', '/found']);
  });

  it('gives up on a receiver that never answers within the timeout', async () => {
    const receiver = await startReceiver(() => {});
    const attempt = await sender({ timeoutMs: 300 }).send({ url: receiver.url, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: null, error: 'no complete answer within 300 ms', permanent: false });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(250);
    expect(attempt.durationMs).toBeLessThan(1500);
  });

  it('counts a body that stalls after a 2xx as an incomplete exchange', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted, but then');
    });
    const attempt = await sender({ timeoutMs: 300 }).send({ url: receiver.url, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: 200, error: 'no complete answer within 300 ms', responseExcerpt: 'accepted, but then' });
  });

  it('reads at most the cap of an endless answer, keeps a 1 KB excerpt, and returns promptly', async () => {
    let closedAfterBytes = -1;
    const receiver = await startReceiver((_req, res) => {
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
    const attempt = await sender({ timeoutMs: 5000 }).send({ url: receiver.url, headers: {}, body });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(attempt).toMatchObject({ ok: true, status: 200, error: null });
    // 1 KB of two-byte characters, none cut in half.
    expect(new TextEncoder().encode(attempt.responseExcerpt).byteLength).toBe(1024);
    expect(attempt.responseExcerpt).toBe('é'.repeat(512));
    await expect.poll(() => closedAfterBytes).toBeGreaterThan(0);
  });

  it('keeps the connection after an answer within the cap, and drops it mid-answer past the cap', async () => {
    const socketClosed = new Map<string, boolean>();
    const receiver = await startReceiver((req, res) => {
      const path = req.url ?? '';
      socketClosed.set(path, false);
      req.socket.once('close', () => socketClosed.set(path, true));
      res.writeHead(200).end(path === '/big' ? 'x'.repeat(1024 * 1024) : 'ok');
    });
    const s = sender({ maxResponseBytes: 1000 });
    expect(await s.send({ url: `${receiver.url}/small`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'ok' });
    const big = await s.send({ url: `${receiver.url}/big`, headers: {}, body });
    expect(big).toMatchObject({ ok: true, responseExcerpt: 'x'.repeat(1024) });
    await expect.poll(() => socketClosed.get('/big')).toBe(true);
    expect(socketClosed.get('/small')).toBe(false);
  });

  it('reports network failures without throwing', async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    const url = receiver.url;
    await receiver.close();
    const attempt = await sender().send({ url, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: null, permanent: false });
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses an invalid URL for good', async () => {
    expect(await sender().send({ url: 'hooks.example.com/in', headers: {}, body })).toMatchObject({
      ok: false,
      status: null,
      error: 'target refused: not a valid absolute URL',
      permanent: true,
    });
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1);
  it('reads seconds and dates, and ignores the rest', () => {
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    for (const value of [null, '', '-5', '1.5', 'soon', '1e3', '12:00']) expect(parseRetryAfterMs(value, now), String(value)).toBeNull();
  });
});

describe('SSRF: with private targets refused, no attempt reaches the canary', () => {
  let canary: Receiver;
  let canary6: Receiver | null = null;
  let lookupCalls: string[] = [];
  let rebindCalls = 0;

  const answers: Record<string, LookupAddress[]> = {
    'canary.test': [{ address: '127.0.0.1', family: 4 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'loopback6.test': [{ address: '::1', family: 6 }],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    // One public answer and one private: any forbidden address refuses the lot.
    'mixed.test': [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }],
  };

  /** The test's DNS: a table, plus a rebinding name that is public once and loopback after. */
  const lookup: LookupFunction = (hostname, options, callback) => {
    lookupCalls.push(hostname);
    let answer = answers[hostname];
    if (hostname === 'rebind.test') answer = rebindCalls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    setImmediate(() => {
      if (!answer) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) callback(null, answer);
      else callback(null, answer[0]!.address, answer[0]!.family);
    });
  };

  beforeAll(async () => {
    const answer: Handler = (_req, res) => res.writeHead(200).end('canary reached');
    canary = await startReceiver(answer);
    try {
      canary6 = await startReceiver(answer, '::1');
    } catch {
      canary6 = null; // no IPv6 loopback here; the [::1] attempts are refused all the same
    }
    open.splice(0); // kept for the whole describe, closed in afterAll
  });

  afterAll(async () => {
    await canary.close();
    await canary6?.close();
  });

  it('refuses at least 20 bypass attempts and the canary sees zero connections', async () => {
    const p = canary.port;
    const p6 = canary6?.port ?? p;
    const attempts = [
      `https://127.0.0.1:${p}/`,
      `http://127.0.0.1:${p}/`,
      `https://localhost:${p}/`,
      `http://localhost:${p}/`,
      `https://LocalHost.:${p}/`,
      `https://127.1:${p}/`,
      `https://2130706433:${p}/`,
      `https://0x7f000001:${p}/`,
      `https://0x7f.0.0.1:${p}/`,
      `https://0x7f.1:${p}/`,
      `https://017700000001:${p}/`,
      `https://0177.0.0.1:${p}/`,
      `https://127.000.000.001:${p}/`,
      `https://127.0.0.1.:${p}/`,
      `https://%31%32%37.0.0.1:${p}/`,
      `https://0.0.0.0:${p}/`,
      `https://[::1]:${p6}/`,
      `https://[::]:${p6}/`,
      `https://[::ffff:127.0.0.1]:${p}/`,
      `https://[::ffff:7f00:1]:${p}/`,
      `https://[0:0:0:0:0:ffff:7f00:1]:${p}/`,
      `https://[::127.0.0.1]:${p}/`,
      `https://[64:ff9b::7f00:1]:${p}/`,
      `https://[2002:7f00:1::]:${p}/`,
      `https://[fe80::1]:${p}/`,
      `https://[fc00::1]:${p}/`,
      'https://10.0.0.1/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/',
      `https://user:pass@canary.test:${p}/`,
      `https://hooks.example.com@127.0.0.1:${p}/`,
      `https://canary.test:${p}/`,
      `https://mapped.test:${p}/`,
      `https://loopback6.test:${p6}/`,
      `https://mixed.test:${p}/`,
      'https://metadata.test/latest/meta-data/',
      `http://canary.test:${p}/`,
    ];
    expect(attempts.length).toBeGreaterThanOrEqual(20);

    const s = sender({ allowPrivate: false, lookup, timeoutMs: 2000 });
    for (const url of attempts) {
      const attempt = await s.send({ url, headers: {}, body });
      expect(attempt, url).toMatchObject({ ok: false, status: null, permanent: true });
      expect(attempt.error, url).toMatch(/^target refused: /);
    }
    // Names only get judged after DNS, at connect time.
    expect(new Set(lookupCalls)).toEqual(new Set(['canary.test', 'mapped.test', 'loopback6.test', 'mixed.test', 'metadata.test']));
    expect(canary.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
  });

  it('catches DNS rebinding at connect time', async () => {
    // What a check at subscription time would have seen: a public address.
    const before = await new Promise<string>((resolve) => lookup('rebind.test', { all: false }, (_e, address) => resolve(address as string)));
    expect(before).toBe('93.184.216.34');

    const s = sender({ allowPrivate: false, lookup, timeoutMs: 2000 });
    const attempt = await s.send({ url: `https://rebind.test:${canary.port}/`, headers: {}, body });
    expect(attempt).toMatchObject({ ok: false, status: null, permanent: true });
    expect(attempt.error).toBe('target refused: rebind.test resolves to 127.0.0.1, which is loopback (127.0.0.0/8)');
    expect(rebindCalls).toBe(2);
    expect(canary.connections).toBe(0);
  });

  it('reaches the canary when private targets are allowed (so the suite can fail)', async () => {
    const s = sender({ allowPrivate: true, lookup });
    expect(await s.send({ url: `http://127.1:${canary.port}/`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'canary reached' });
    expect(await s.send({ url: `http://canary.test:${canary.port}/`, headers: {}, body })).toMatchObject({ ok: true });
    expect(canary.connections).toBe(2);
  });
});
