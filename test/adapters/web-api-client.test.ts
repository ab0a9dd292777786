/**
 * The Web API client against misbehaving servers on loopback: one that never answers, one that
 * answers without end, one that answers an HTML error page. Each call ends in bounded time and
 * bounded memory with a WebApiError that says whether a retry can help.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebApiClient } from '../../src/adapters/web-api-client.ts';
import { WebApiError } from '../../src/core/errors.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve)).catch(() => {})));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const client = (baseUrl: string, timeoutMs = 500) => createWebApiClient({ baseUrl, clientId: 'id', clientSecret: 'secret', timeoutMs });

describe('web api client', () => {
  it('gives up on a server that never answers, after its timeout, as retryable', async () => {
    const url = await serve((_req, res) => {
      servers[0]?.on('close', () => res.destroy());
    });
    const started = Date.now();
    const error = await client(url)
      .refresh('xoxe-1-r')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebApiError);
    expect(error).toMatchObject({ method: 'oauth.v2.access', code: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const s of servers.splice(0)) s.closeAllConnections();
  });

  it('stops reading an answer that never ends, and says it was too large', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(16_384, 0x20);
      const pump = () => {
        while (res.write(chunk)) {}
        res.once('drain', pump);
      };
      res.write('{"ok":true,"pad":"');
      pump();
    });
    const error = await client(url, 5_000)
      .exchange('xoxb-long')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'too_large', retryable: false });
    for (const s of servers.splice(0)) s.closeAllConnections();
  });

  it('surfaces the vendor error code, and an error page by its status', async () => {
    const url = await serve((req, res) => {
      if (req.url?.endsWith('oauth.v2.access')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"ok":false,"error":"invalid_refresh_token"}');
      } else {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<html>bad gateway</html>');
      }
    });
    await expect(client(url).refresh('r')).rejects.toMatchObject({ code: 'invalid_refresh_token', retryable: false });
    await expect(client(url).identify('t')).rejects.toMatchObject({ method: 'auth.test', code: 'http_502', retryable: true });
  });

  it('reads the workspace name auth.test gives, cut at 200 characters, and none when it is missing or not text', async () => {
    const answers = [
      { ok: true, team_id: 'T1', team: '  Demo workspace ', user_id: 'U1', bot_id: 'B1' },
      { ok: true, team_id: 'T1', team: 'W'.repeat(5_000), user_id: 'U1' },
      { ok: true, team_id: 'T1', user_id: 'U1' },
      { ok: true, team_id: 'T1', team: { name: 'odd' }, user_id: 'U1' },
    ];
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answers.shift()));
    });
    const api = client(url);
    expect(await api.identify('t')).toEqual({ teamId: 'T1', teamName: 'Demo workspace', userId: 'U1', botUserId: 'U1' });
    expect((await api.identify('t')).teamName).toBe('W'.repeat(200));
    expect((await api.identify('t')).teamName).toBeNull();
    expect((await api.identify('t')).teamName).toBeNull();
  });

  it('sends the refresh grant form-encoded with the client credentials', async () => {
    let seen = '';
    let type = '';
    const url = await serve((req, res) => {
      type = req.headers['content-type'] ?? '';
      req.on('data', (c: Buffer) => (seen += c.toString()));
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            ok: true,
            access_token: 'xoxe.xoxb-1',
            refresh_token: 'xoxe-1-n',
            expires_in: 77,
            token_type: 'bot',
            scope: 'chat:write,channels:read',
            bot_user_id: 'U1',
            team: { id: 'T1', name: 'A' },
          }),
        );
      });
    });
    const grant = await client(url).refresh('xoxe-1-old');
    expect(type).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen))).toEqual({
      client_id: 'id',
      client_secret: 'secret',
      grant_type: 'refresh_token',
      refresh_token: 'xoxe-1-old',
    });
    // expires_in as sent, not the spec's 43,200.
    expect(grant).toEqual({
      accessToken: 'xoxe.xoxb-1',
      refreshToken: 'xoxe-1-n',
      expiresInSeconds: 77,
      scopes: ['chat:write', 'channels:read'],
      botUserId: 'U1',
      teamId: 'T1',
    });
  });

  it('refuses a redirect without following it, so the token never goes elsewhere', async () => {
    let followed = 0;
    const elsewhere = await serve((_req, res) => {
      followed++;
      res.end('{"ok":true,"ts":"1.000001","channel":"C1"}');
    });
    const url = await serve((_req, res) => {
      res.writeHead(302, { Location: `${elsewhere}/api/chat.postMessage` });
      res.end();
    });
    const error = await client(url)
      .postMessage('xoxe.xoxb-1', 'C1', { text: 'hi', blocks: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ method: 'chat.postMessage', code: 'http_302', retryable: false });
    expect(followed).toBe(0);
  });

  it('reads a 429 with its Retry-After as a rate limit', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(429, { 'Retry-After': '17', 'Content-Type': 'application/json' });
      res.end('{"ok":false,"error":"ratelimited"}');
    });
    const error = await client(url)
      .updateMessage('xoxe.xoxb-1', 'C1', '1.000001', { text: 'hi', blocks: [] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ method: 'chat.update', code: 'ratelimited', retryable: true, retryAfterMs: 17_000 });
  });

  it('keeps only string values of message metadata it reads back', async () => {
    const url = await serve((_req, res) => {
      res.end(
        JSON.stringify({
          ok: true,
          messages: [{ ts: '1.000001', bot_id: 'B1', metadata: { event_type: 'statuswatch_incident', event_payload: { incident_id: '1600', n: 3 } } }],
          response_metadata: { next_cursor: '' },
        }),
      );
    });
    const page = await client(url).history('xoxe.xoxb-1', 'C1', { cursor: null, limit: 200 });
    expect(page).toEqual({
      messages: [{ ts: '1.000001', metadata: { eventType: 'statuswatch_incident', eventPayload: { incident_id: '1600' } } }],
      skipped: [],
      nextCursor: null,
    });
  });
});
