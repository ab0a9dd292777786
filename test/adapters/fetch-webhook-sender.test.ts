import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrlWithoutDns, createFetchWebhookSender } from '../../src/adapters/fetch-webhook-sender.ts';
import { describeWebhookSender, startReceiver, type Receiver } from './webhook-sender-cases.ts';

describeWebhookSender('fetch sender (Workers)', createFetchWebhookSender);

const body = JSON.stringify({ type: 'incident.created', data: { incident: { id: '1579' } } });

describe('fetch sender with private targets refused: judged on the URL, before any request', () => {
  let canary: Receiver;
  let canary6: Receiver | null = null;

  beforeAll(async () => {
    canary = await startReceiver((_req, res) => res.writeHead(200).end('canary reached'));
    try {
      canary6 = await startReceiver((_req, res) => res.writeHead(200).end('canary reached'), '::1');
    } catch {
      canary6 = null; // no IPv6 loopback here; the [::1] attempts are refused all the same
    }
  });
  afterAll(async () => {
    await canary.close();
    await canary6?.close();
  });

  it('refuses loopback in every notation, private names, and any IP literal; the canary sees no connection', async () => {
    const p = canary.port;
    const p6 = canary6?.port ?? p;
    const attempts = [
      // Loopback and private addresses, in the notations the URL parser folds into one.
      `https://127.0.0.1:${p}/`,
      `https://127.1:${p}/`,
      `https://2130706433:${p}/`,
      `https://0x7f000001:${p}/`,
      `https://0x7f.0.0.1:${p}/`,
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
      `https://[64:ff9b::7f00:1]:${p}/`,
      `https://[fe80::1]:${p}/`,
      'https://10.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      // Public addresses too: with nothing checking where a name leads, receivers are named.
      'https://8.8.8.8/',
      'https://134744072/',
      'https://[2606:4700:4700::1111]/',
      'https://[::ffff:8.8.8.8]/',
      // Names that are private whatever DNS says.
      `https://localhost:${p}/`,
      `https://LocalHost.:${p}/`,
      `https://api.localhost:${p}/`,
      `https://printer.local:${p}/`,
      `https://metadata.google.internal:${p}/`,
      `https://nas.home.arpa:${p}/`,
      `https://intranet:${p}/`,
      `https://intranet.:${p}/`,
      // Plain http to a public name, and credentials that make a URL look as if it went elsewhere.
      'http://hooks.example.com/in',
      `https://hooks.example.com@127.0.0.1:${p}/`,
      'https://user:pass@hooks.example.com/in',
      'ftp://hooks.example.com/in',
    ];
    const sender = createFetchWebhookSender({ allowPrivate: false, userAgent: 'statuswatch-test/1', timeoutMs: 2000 });
    for (const url of attempts) {
      const attempt = await sender.send({ url, headers: {}, body });
      expect(attempt, url).toMatchObject({ ok: false, status: null, permanent: true });
      expect(attempt.error, url).toMatch(/^target refused: /);
    }
    await sender.close();
    expect(canary.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
  });

  it('says why, so the subscriber can fix the URL', () => {
    const strict = { allowPrivate: false };
    expect(checkWebhookUrlWithoutDns('https://8.8.8.8/', strict)).toEqual({
      ok: false,
      reason: 'address 8.8.8.8 is an IP literal: name the receiver by a DNS name',
    });
    expect(checkWebhookUrlWithoutDns('https://0x7f.1/', strict)).toEqual({
      ok: false,
      reason: 'address 127.0.0.1 is loopback (127.0.0.0/8)',
      privateTarget: true,
    });
    expect(checkWebhookUrlWithoutDns('https://printer.local/', strict)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^printer\.local is .*RFC 6762/),
    });
    expect(checkWebhookUrlWithoutDns('https://hooks.example.com/in', strict).ok).toBe(true);
  });

  it('reaches the canary when private targets are allowed (so the refusals above can fail)', async () => {
    const sender = createFetchWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test/1' });
    expect(await sender.send({ url: `http://127.1:${canary.port}/`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'canary reached' });
    expect(await sender.send({ url: `http://localhost:${canary.port}/`, headers: {}, body })).toMatchObject({ ok: true });
    await sender.close();
    expect(canary.connections).toBeGreaterThanOrEqual(1);
    expect(canary.requests).toHaveLength(2);
  });
});
