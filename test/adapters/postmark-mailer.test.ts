import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { classifyPostmarkAnswer, createMailApiMailerFromConfig, createPostmarkMailer } from '../../src/adapters/postmark-mailer.ts';
import { parseConfig } from '../../src/config.ts';
import { planPoll, type ArchivedIncident } from '../../src/core/diff.ts';
import { renderEmail } from '../../src/core/email-render.ts';
import { groupForMessages, type IncidentUpdate } from '../../src/core/notification-message.ts';
import type { Mailer, OutgoingMail } from '../../src/core/ports.ts';
import { filesIncidentResolved, one, type RawIncident } from '../fixtures/vendor-builders.ts';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';
import { startPostmark, type TestPostmark } from '../helpers/postmark-api.ts';

function update(after: RawIncident, before?: RawIncident): IncidentUpdate {
  const archived = new Map<string, ArchivedIncident>();
  if (before) archived.set(String(before.id), { ...one(before), revision: 1, resolvedAt: null });
  const { events } = planPoll({ observed: [one(after)], archived, now: Date.UTC(2026, 9, 1, 15), backfill: false });
  return groupForMessages(events)[0]!;
}

const { active, resolved } = filesIncidentResolved('<p>Uploads work again.&nbsp;See <a href="https://slack.com/help">help</a>.</p>');

/** A real rendered email, as the deliverer hands it to any Mailer. */
function mailTo(to: string): OutgoingMail {
  return {
    to,
    ...renderEmail(update(resolved, active), {
      publicUrl: 'https://status.example.org',
      timeZone: 'Europe/Berlin',
      unsubscribeUrl: 'https://status.example.org/unsubscribe?t=tok123',
      manageUrl: 'https://status.example.org/subscriptions?t=tok123',
      sanitizeHtml: sanitizeNoteHtml,
    }),
  };
}

const FROM = 'statuswatch <alerts@status.example.org>';

describe('createPostmarkMailer against a Postmark stand-in on loopback', () => {
  let postmark: TestPostmark;
  let mailer: Mailer;

  beforeAll(async () => {
    postmark = await startPostmark();
    mailer = createPostmarkMailer({ serverToken: postmark.token, from: FROM, apiUrl: postmark.url });
  });
  afterAll(async () => {
    mailer.close();
    await postmark.close();
  });

  it('sends the request Postmark documents, and reports its MessageID', async () => {
    const mail = mailTo('ada@example.com');
    const result = await mailer.send(mail);
    expect(result).toEqual({ ok: true, response: 'Postmark HTTP 200, ErrorCode 0: OK', messageId: expect.stringMatching(/^b7bc2f4a-/) });

    const request = postmark.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/email' });
    expect(request.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json', 'x-postmark-server-token': postmark.token });
    const sent = postmark.accepted.at(-1)!;
    expect(sent).toEqual({
      From: FROM,
      To: 'ada@example.com',
      Subject: '[Resolved] Files: Some files fail to upload',
      TextBody: mail.text,
      HtmlBody: mail.html,
      Headers: expect.any(Array),
      MessageStream: 'outbound',
    });
    expect(sent.TextBody).toContain('Uploads work again.');
    expect(sent.HtmlBody).toContain('<a href="https://slack.com/help"');
    // RFC 8058 one-click unsubscribe travels as Postmark's custom headers.
    expect(sent.Headers).toContainEqual({ Name: 'List-Unsubscribe', Value: '<https://status.example.org/unsubscribe?t=tok123>' });
    expect(sent.Headers).toContainEqual({ Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' });
  });

  it('sends to the message stream it is given', async () => {
    const broadcast = createPostmarkMailer({ serverToken: postmark.token, from: FROM, apiUrl: `${postmark.url}/`, messageStream: 'status-alerts' });
    expect(await broadcast.send(mailTo('grace@example.com'))).toMatchObject({ ok: true });
    expect(postmark.accepted.at(-1)).toMatchObject({ To: 'grace@example.com', MessageStream: 'status-alerts' });
  });

  it('sends the Message-ID it is given as a header', async () => {
    const messageId = '<group.0123456789abcdef@status.example.org>';
    expect(await mailer.send({ ...mailTo('ada@example.com'), messageId })).toMatchObject({ ok: true });
    expect(postmark.accepted.at(-1)!.Headers).toContainEqual({ Name: 'Message-ID', Value: messageId });
  });

  it.each(HOSTILE_ADDRESSES)('refuses %j for good without asking Postmark, whose To is a list', async (to) => {
    const before = postmark.requests.length;
    const result = await mailer.send(mailTo(to));
    expect(result).toMatchObject({ ok: false, kind: 'recipient_rejected', retryable: false, response: expect.stringContaining('not one bare email address') });
    expect(postmark.requests.length).toBe(before);
  });

  it('reports an inactive recipient (422, ErrorCode 406) as the recipient rejected: suppress the address', async () => {
    const result = await mailer.send(mailTo('inactive@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'recipient_rejected', code: 422, retryable: false });
    expect(result.ok || result.response).toMatch(/^Postmark HTTP 422, ErrorCode 406: You tried to send to recipient\(s\) that have been marked as inactive/);
  });

  it('reports an invalid email request (422, ErrorCode 300) as this message refused, not the address', async () => {
    const result = await mailer.send(mailTo('invalid@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'message_rejected', code: 422, retryable: false });
    expect(result.ok || result.response).toContain('ErrorCode 300');
  });

  it("keeps Postmark's words with half a surrogate pair as one U+FFFD", async () => {
    const result = await mailer.send(mailTo('halfpair@example.com'));
    expect(result.ok || result.response).toBe('Postmark HTTP 422, ErrorCode 300: Invalid email request: \ufffd in To.');
  });

  it('refuses a message with no body the way Postmark does, as this message refused', async () => {
    const result = await mailer.send({ ...mailTo('ada@example.com'), text: undefined as unknown as string, html: undefined as unknown as string });
    expect(result).toMatchObject({ ok: false, kind: 'message_rejected', code: 422, retryable: false });
  });

  it.each([
    ['notallowed', 405],
    ['pending', 412],
    ['maynotsend', 413],
  ])('reports an account that cannot send (%s, ErrorCode %i) as a shut door, to retry once fixed', async (local, errorCode) => {
    const result = await mailer.send(mailTo(`${local}@example.com`));
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: 422, retryable: true });
    expect(result.ok || result.response).toContain(`ErrorCode ${errorCode}`);
  });

  it('reports a wrong server token (401, ErrorCode 10) as a shut door, to retry once fixed', async () => {
    const wrong = createPostmarkMailer({ serverToken: 'not-the-token', from: FROM, apiUrl: postmark.url });
    const result = await wrong.send(mailTo('ada@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: 401, retryable: true });
    expect(result.ok || result.response).toContain('ErrorCode 10');
    // The token is a secret: no result ever carries it.
    expect(JSON.stringify(result)).not.toContain('not-the-token');
  });

  it.each([
    ['ratelimited', 429],
    ['servererror', 500],
    ['unavailable', 503],
    ['unknowncode', 422],
  ])('reports %s (HTTP %i) as temporary, to retry', async (local, status) => {
    const result = await mailer.send(mailTo(`${local}@example.com`));
    expect(result).toMatchObject({ ok: false, kind: 'temporary', code: status, retryable: true });
  });

  it('reports a MAIL_API_URL that does not lead to the API (404 page) as connection, to retry', async () => {
    const lost = createPostmarkMailer({ serverToken: postmark.token, from: FROM, apiUrl: `${postmark.url}/v2` });
    const result = await lost.send(mailTo('ada@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: 404, retryable: true, response: 'Postmark HTTP 404' });
  });
});

describe('createPostmarkMailer when the API misbehaves or cannot be reached', () => {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();

  /** `written` is for the handler to count what it wrote; `closedAfterBytes` is that count when the answer closed. */
  async function serve(
    handler: (res: ServerResponse, written: { bytes: number }) => void,
  ): Promise<{ url: string; requests: () => number; closedAfterBytes: () => number }> {
    let requests = 0;
    let closedAfterBytes = -1;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        const written = { bytes: 0 };
        res.on('close', () => {
          closedAfterBytes = written.bytes;
        });
        handler(res, written);
      });
    });
    server.on('connection', (socket) => sockets.add(socket));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, requests: () => requests, closedAfterBytes: () => closedAfterBytes };
  }

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it('gives up on an API that never answers after the timeout, as connection', async () => {
    const silent = await serve(() => {});
    const mailer = createPostmarkMailer({ serverToken: 't', from: FROM, apiUrl: silent.url, timeoutMs: 300 });
    const started = performance.now();
    const result = await mailer.send(mailTo('ada@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: null, retryable: true, response: 'Postmark: no complete answer within 300 ms' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('does not read an endless answer whole: it stops at the cap, drops the connection and retries later', async () => {
    const endless = await serve((res, written) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      res.write(Buffer.from('{"ErrorCode":0,"Message":"OK","MessageID":"x","Padding":"'));
      const pump = () => {
        while (!res.destroyed) {
          const more = res.write(chunk);
          written.bytes += chunk.byteLength;
          if (!more) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const mailer = createPostmarkMailer({ serverToken: 't', from: FROM, apiUrl: endless.url, timeoutMs: 5000 });
    const started = performance.now();
    const result = await mailer.send(mailTo('ada@example.com'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: 200, retryable: true });
    await expect.poll(() => endless.closedAfterBytes()).toBeGreaterThan(0);
    expect(endless.closedAfterBytes()).toBeLessThan(64 * 1024 * 1024);
  });

  it('does not follow a redirect away from the API', async () => {
    const elsewhere = await serve((res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ErrorCode":0,"Message":"OK","MessageID":"stolen"}'),
    );
    const redirecting = await serve((res) => res.writeHead(307, { location: `${elsewhere.url}/email` }).end());
    const mailer = createPostmarkMailer({ serverToken: 't', from: FROM, apiUrl: redirecting.url });
    expect(await mailer.send(mailTo('ada@example.com'))).toMatchObject({ ok: false, kind: 'connection', code: 307, retryable: true });
    expect(elsewhere.requests()).toBe(0);
  });

  it('reports a 200 that is not Postmark talking as connection, not as sent', async () => {
    const portal = await serve((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in to the Wi-Fi</html>'));
    const mailer = createPostmarkMailer({ serverToken: 't', from: FROM, apiUrl: portal.url });
    expect(await mailer.send(mailTo('ada@example.com'))).toMatchObject({
      ok: false,
      kind: 'connection',
      code: 200,
      retryable: true,
      response: 'Postmark HTTP 200',
    });
  });

  it('reports a refused connection as connection, to retry', async () => {
    const gone = await serve(() => {});
    const url = gone.url;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const result = await createPostmarkMailer({ serverToken: 't', from: FROM, apiUrl: url }).send(mailTo('ada@example.com'));
    expect(result).toMatchObject({ ok: false, kind: 'connection', code: null, retryable: true });
    expect(result.ok || result.response).toMatch(/ECONNREFUSED/);
  });
});

describe('createMailApiMailerFromConfig', () => {
  it('sends through Postmark as the settings say, and is off without MAIL_API_TOKEN', async () => {
    const postmark = await startPostmark();
    try {
      const config = parseConfig({ MAIL_API_TOKEN: postmark.token, MAIL_FROM: FROM, MAIL_API_URL: postmark.url, MAIL_API_STREAM: 'alerts' });
      const mailer = createMailApiMailerFromConfig(config);
      expect(await mailer?.send(mailTo('ada@example.com'))).toMatchObject({ ok: true });
      expect(postmark.accepted).toEqual([expect.objectContaining({ From: FROM, To: 'ada@example.com', MessageStream: 'alerts' })]);
      expect(createMailApiMailerFromConfig(parseConfig({ MAIL_FROM: FROM }))).toBeNull();
    } finally {
      await postmark.close();
    }
  });
});

describe('classifyPostmarkAnswer', () => {
  it('sorts answers it cannot read by the status alone', () => {
    expect(classifyPostmarkAnswer(422, 'not json')).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifyPostmarkAnswer(422, null)).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifyPostmarkAnswer(502, '<html>Bad gateway</html>')).toMatchObject({ kind: 'temporary', code: 502 });
    expect(classifyPostmarkAnswer(200, '{"ErrorCode":0,"Message":"OK"}')).toMatchObject({ ok: false, kind: 'connection' });
    const long = classifyPostmarkAnswer(422, JSON.stringify({ ErrorCode: 300, Message: 'x'.repeat(10_000) }));
    expect(long.ok || long.response.length).toBeLessThan(600);
  });
});
