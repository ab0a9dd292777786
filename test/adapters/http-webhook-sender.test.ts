import type { LookupAddress } from 'node:dns';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import type { WebhookSender } from '../../src/core/ports.ts';
import { describeWebhookSender, startReceiver, type Receiver } from './webhook-sender-cases.ts';

describeWebhookSender('undici sender (Node)', createHttpWebhookSender);

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const senders: WebhookSender[] = [];

function sender(options: Partial<Parameters<typeof createHttpWebhookSender>[0]> = {}): WebhookSender {
  const created = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test/1', ...options });
  senders.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
});

const body = JSON.stringify({ type: 'incident.created', data: { incident: { id: '1579' } } });

describe('undici sender: what its Agent adds', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('keeps the connection after an answer within the cap, and drops it mid-answer past the cap', async () => {
    const socketClosed = new Map<string, boolean>();
    const target = await startReceiver((req, res) => {
      const path = req.url ?? '';
      socketClosed.set(path, false);
      req.socket.once('close', () => socketClosed.set(path, true));
      res.writeHead(200).end(path === '/big' ? 'x'.repeat(1024 * 1024) : 'ok');
    });
    receivers.push(target);
    const s = sender({ maxResponseBytes: 1000 });
    expect(await s.send({ url: `${target.url}/small`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'ok' });
    expect(await s.send({ url: `${target.url}/big`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'x'.repeat(1000) });
    await expect.poll(() => socketClosed.get('/big')).toBe(true);
    expect(socketClosed.get('/small')).toBe(false);
  });

  it("names the network failure in the runtime's words", async () => {
    const target = await startReceiver((_req, res) => res.end());
    await target.close();
    const attempt = await sender().send({ url: target.url, headers: {}, body });
    expect(attempt.error).toMatch(/ECONNREFUSED/);
  });
});

describe('SSRF: with private targets refused, no attempt reaches the canary', () => {
  let canary: Receiver;
  let canary6: Receiver | null = null;
  const lookupCalls: string[] = [];
  let rebindCalls = 0;

  const answers: Record<string, LookupAddress[]> = {
    'canary.test': [{ address: '127.0.0.1', family: 4 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'loopback6.test': [{ address: '::1', family: 6 }],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    // One public answer and one private: any forbidden address refuses the lot.
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
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
