/**
 * The Workers form's senders inside workerd (Miniflare), not just on Node's fetch: the shared
 * webhook sender suite, the refusals, and the Postmark mailer against its stand-in. Each sender
 * is made in one request to the worker and used in later ones, as an entry that builds its
 * adapters once would use them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostmark, type TestPostmark } from '../helpers/postmark-api.ts';
import { startWorkerdSenders, type WorkerdSenders } from '../helpers/workerd-senders.ts';
import { describeWebhookSender, startReceiver, type Receiver } from './webhook-sender-cases.ts';

let workerd: WorkerdSenders;
beforeAll(async () => {
  workerd = await startWorkerdSenders();
});
afterAll(() => workerd.dispose());

describeWebhookSender('fetch sender in workerd', (options) => workerd.webhookSender(options));

const body = JSON.stringify({ type: 'incident.created', data: { incident: { id: '1579' } } });

describe('fetch sender in workerd with private targets refused', () => {
  let canary: Receiver;
  beforeAll(async () => {
    canary = await startReceiver((_req, res) => res.writeHead(200).end('canary reached'));
  });
  afterAll(() => canary.close());

  it('refuses loopback in odd notations, private names and public literals; the canary sees no connection', async () => {
    const p = canary.port;
    const sender = workerd.webhookSender({ allowPrivate: false, userAgent: 'statuswatch-test/1' });
    for (const url of [
      `https://0x7f.1:${p}/`,
      `https://2130706433:${p}/`,
      `https://[::ffff:127.0.0.1]:${p}/`,
      `https://localhost:${p}/`,
      `https://printer.local:${p}/`,
      `https://intranet:${p}/`,
      'https://8.8.8.8/',
      `http://127.0.0.1:${p}/`,
    ]) {
      const attempt = await sender.send({ url, headers: {}, body });
      expect(attempt, url).toMatchObject({ ok: false, status: null, permanent: true, error: expect.stringMatching(/^target refused: /) });
    }
    expect(canary.connections).toBe(0);
    // The same sender settings with private targets allowed do reach it: the refusals above can fail.
    const lax = workerd.webhookSender({ allowPrivate: true, userAgent: 'statuswatch-test/1' });
    expect(await lax.send({ url: `http://0x7f.1:${p}/`, headers: {}, body })).toMatchObject({ ok: true, responseExcerpt: 'canary reached' });
    expect(canary.connections).toBe(1);
  });
});

describe('Postmark mailer in workerd', () => {
  let postmark: TestPostmark;
  beforeAll(async () => {
    postmark = await startPostmark();
  });
  afterAll(() => postmark.close());

  const mail = {
    to: 'ada@example.com',
    subject: '[Resolved] Files: Some files fail to upload',
    text: 'Uploads work again.',
    html: '<p>Uploads work again.</p>',
    headers: { 'List-Unsubscribe': '<https://status.example.org/unsubscribe?t=tok123>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };

  it('sends what Postmark documents, and sorts its refusals as on Node', async () => {
    const mailer = workerd.postmarkMailer({ serverToken: postmark.token, from: 'alerts@status.example.org', apiUrl: postmark.url });
    expect(await mailer.send(mail)).toMatchObject({ ok: true, messageId: expect.stringMatching(/^b7bc2f4a-/) });
    expect(postmark.accepted.at(-1)).toEqual({
      From: 'alerts@status.example.org',
      To: 'ada@example.com',
      Subject: mail.subject,
      TextBody: mail.text,
      HtmlBody: mail.html,
      Headers: [
        { Name: 'List-Unsubscribe', Value: '<https://status.example.org/unsubscribe?t=tok123>' },
        { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
      ],
      MessageStream: 'outbound',
    });
    expect(postmark.requests.at(-1)?.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'x-postmark-server-token': postmark.token,
    });
    expect(await mailer.send({ ...mail, to: 'inactive@example.com' })).toMatchObject({ ok: false, kind: 'recipient_rejected', code: 422, retryable: false });
    expect(await mailer.send({ ...mail, to: 'unavailable@example.com' })).toMatchObject({ ok: false, kind: 'temporary', code: 503, retryable: true });
  });

  it('gives up on an API that never answers, and stops reading an endless one', async () => {
    let closedAfterBytes = -1;
    const server: Server = createServer((req, res) => {
      if (req.url === '/silent/email') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      let written = 0;
      res.on('close', () => {
        closedAfterBytes = written;
      });
      const pump = () => {
        while (!res.destroyed) {
          const more = res.write(chunk);
          written += chunk.byteLength;
          if (!more) return void res.once('drain', pump);
        }
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const silent = workerd.postmarkMailer({ serverToken: 't', from: 'alerts@status.example.org', apiUrl: `${url}/silent`, timeoutMs: 300 });
      expect(await silent.send(mail)).toMatchObject({ ok: false, kind: 'connection', retryable: true, response: 'Postmark: no complete answer within 300 ms' });
      const endless = workerd.postmarkMailer({ serverToken: 't', from: 'alerts@status.example.org', apiUrl: `${url}/endless`, timeoutMs: 5000 });
      const started = performance.now();
      expect(await endless.send(mail)).toMatchObject({ ok: false, kind: 'connection', code: 200, retryable: true });
      expect(performance.now() - started).toBeLessThan(2000);
      await expect.poll(() => closedAfterBytes).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
