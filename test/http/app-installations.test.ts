/**
 * The workspace app's installations API against the simulated Web API over real HTTP
 * and a real SQLite file: install from a pasted token (once), list, and our cursor pagination over
 * the vendor's conversations.list, however short or oddly ended the vendor's pages are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { cursorPayload } from '../helpers/cursor-payload.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';
import { startWebApi, type WebApiClient } from '../sim/web-api-helpers.ts';
import { logLines } from '../helpers/log-lines.ts';

describe('the installations API', () => {
  let service: TestApp | null = null;
  afterEach(async () => {
    await service?.close();
    service = null;
  });

  async function withApp(sim: WebApiClient, env: Record<string, string> = {}): Promise<TestApp> {
    service = await startTestApp(NO_FEED_URL, {
      env: { APP_API_URL: sim.url, APP_CLIENT_ID: sim.clientId, APP_CLIENT_SECRET: sim.clientSecret, ...env },
    });
    return service;
  }
  const raw = async (app: TestApp, method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const res = await app.fetch(app.url + path, {
      method,
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.status, text: await res.text() };
  };

  it('installs from a pasted token: 201 with the installation and no token anywhere in the answer or the database', async () => {
    const sim = await startWebApi();
    const ws = await sim.workspace({ name: 'Acme' });
    const app = await withApp(sim);
    const res = await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }));
    expect(res.status, res.text).toBe(201);
    const body = JSON.parse(res.text) as { installation: Record<string, unknown> };
    expect(body.installation).toMatchObject({ team_id: ws.teamId, bot_user_id: ws.botUserId, state: 'active', reason: null });
    expect(body.installation.scopes).toEqual(expect.arrayContaining(['chat:write', 'channels:read']));
    expect(Date.parse(String(body.installation.access_token_expires_at))).toBeGreaterThan(Date.now());
    expect(res.text).not.toContain(ws.token);
    expect(res.text).not.toMatch(/xox[a-z]-/);
    // Stored sealed: nothing the vendor issued is readable in the row.
    const stored = await app.store.findInstallation(String(body.installation.id));
    expect(stored?.accessTokenSealed).toBeTruthy();
    expect(stored?.accessTokenSealed).not.toMatch(/xox/);
    expect(stored?.refreshTokenSealed).not.toMatch(/xox/);
    expect(app.logs.join('\n')).not.toContain(ws.token);

    const listed = await raw(app, 'GET', '/api/app/installations');
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.text).installations).toEqual([body.installation]);
    expect(listed.text).not.toMatch(/xox[a-z]-/);
  });

  it('says plainly that a token exchanged before cannot be exchanged again (409), without echoing it', async () => {
    const sim = await startWebApi();
    const ws = await sim.workspace();
    const app = await withApp(sim);
    expect((await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }))).status).toBe(201);
    const again = await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }));
    expect(again.status).toBe(409);
    const body = JSON.parse(again.text) as { error: string; detail: string };
    expect(body.error).toBe('token_already_exchanged');
    expect(body.detail).toMatch(/exchanged before/);
    expect(again.text).not.toContain(ws.token);
  });

  it('refuses bad bodies with 400 and a clear message that does not echo the value', async () => {
    const sim = await startWebApi();
    const app = await withApp(sim);
    const cases: [string | undefined, Record<string, string>, RegExp][] = [
      ['{}', {}, /token/],
      ['{"token": ""}', {}, /token must not be empty/],
      ['{"token": "has space secret-x1"}', {}, /printable characters without spaces/],
      ['{"token": 12345678}', {}, /token must be the long-lived bot token/],
      ['not json', {}, /not valid JSON/],
      ['{"token": "x"}', { 'content-type': 'text/plain' }, /expected a JSON body/],
      ['{"token": "xoxb-1", "extra": 1}', {}, /extra/],
    ];
    for (const [body, headers, message] of cases) {
      const res = await raw(app, 'POST', '/api/app/installations', body, headers);
      expect(res.status, `${body}: ${res.text}`).toBe(400);
      expect(JSON.parse(res.text).detail).toMatch(message);
      expect(res.text).not.toContain('secret-x1');
    }
  });

  it('answers 502 naming the vendor error when the vendor refuses or cannot be reached, and 503 when the app is not configured', async () => {
    const sim = await startWebApi();
    const app = await withApp(sim);
    const refused = await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: 'xoxb-not-issued' }));
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.text)).toMatchObject({ error: 'vendor_error', detail: expect.stringContaining('invalid_token') });
    await app.close();

    service = await startTestApp(NO_FEED_URL, { env: { APP_API_URL: 'http://127.0.0.1:9', APP_CLIENT_ID: 'c', APP_CLIENT_SECRET: 's' } });
    const down = await raw(service, 'POST', '/api/app/installations', JSON.stringify({ token: 'xoxb-1' }));
    expect(down.status).toBe(502);
    expect(JSON.parse(down.text).detail).toMatch(/could not be reached/);
    await service.close();

    service = await startTestApp(NO_FEED_URL);
    const off = await raw(service, 'POST', '/api/app/installations', JSON.stringify({ token: 'xoxb-1' }));
    expect(off.status).toBe(503);
    expect(JSON.parse(off.text).error).toBe('app_not_configured');
  });

  it('needs the admin token', async () => {
    const sim = await startWebApi();
    const app = await withApp(sim);
    for (const path of ['/api/app/installations', '/api/app/installations/x/conversations']) {
      const res = await app.fetch(app.url + path);
      expect(res.status, path).toBe(401);
    }
  });

  for (const endCursor of ['empty', 'null', 'absent'] as const) {
    it(`walks every conversation exactly once over short vendor pages ending with a ${endCursor} cursor`, async () => {
      const sim = await startWebApi();
      const names = Array.from({ length: 11 }, (_, n) => `ops-${String(n).padStart(2, '0')}`);
      const ws = await sim.workspace({
        channels: [...names.map((name) => ({ name })), { name: 'old', isArchived: true }, { name: 'secret', isPrivate: true, botIsMember: true }],
      });
      // The vendor answers at most two a page, whatever limit we ask: a short page is not the end.
      await sim.settings({ maxPageItems: 2, endCursor });
      const app = await withApp(sim);
      const installed = await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }));
      const id = JSON.parse(installed.text).installation.id as string;

      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor = '';
      for (let page = 0; page < 20; page++) {
        const res = await raw(app, 'GET', `/api/app/installations/${id}/conversations?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status, res.text).toBe(200);
        const body = JSON.parse(res.text) as { conversations: { name: string; is_private: boolean }[]; response_metadata: { next_cursor: string } };
        seen.push(...body.conversations.map((x) => x.name));
        sizes.push(body.conversations.length);
        cursor = body.response_metadata.next_cursor;
        if (cursor === '') break;
      }
      expect(seen).toEqual([...names, 'secret']);
      expect(sizes).toEqual([5, 5, 2]);
    });
  }

  it('resumes inside a vendor page when our page ends in its middle', async () => {
    const sim = await startWebApi();
    const ws = await sim.workspace({ channels: Array.from({ length: 7 }, (_, n) => ({ name: `c${n}` })) });
    // Pages of two: our page of three ends inside the vendor's second page.
    await sim.settings({ maxPageItems: 2 });
    const app = await withApp(sim);
    const id = JSON.parse((await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }))).text).installation.id as string;
    const first = JSON.parse((await raw(app, 'GET', `/api/app/installations/${id}/conversations?limit=3`)).text);
    expect(first.conversations.map((x: { name: string }) => x.name)).toEqual(['c0', 'c1', 'c2']);
    const second = JSON.parse(
      (await raw(app, 'GET', `/api/app/installations/${id}/conversations?limit=3&cursor=${encodeURIComponent(first.response_metadata.next_cursor)}`)).text,
    );
    expect(second.conversations.map((x: { name: string }) => x.name)).toEqual(['c3', 'c4', 'c5']);
  });

  it('lists a channel name with half a surrogate pair as one U+FFFD, and skips a channel whose id holds one, logged with the reason', async () => {
    // JSON may carry "\ud800", which UTF-8 cannot: the vendor's names are made well formed as they
    // are read; an id is a key, and a repaired one would name another channel, so that channel is
    // left out (core/outside-records.ts) and the rest of the page listed.
    const sim = await startWebApi();
    const ws = await sim.workspace({ channels: [{ name: 'ops' }, { name: 'web' }] });
    const app = await withApp(sim);
    const id = JSON.parse((await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }))).text).installation.id as string;
    const channel = { id: ws.channels.ops, name: 'ops-\ud800', is_private: false, is_archived: false, is_member: true };
    const answer = (channels: unknown[]) => JSON.stringify({ ok: true, channels, response_metadata: { next_cursor: '' } });
    await sim.control('POST', '/faults', { method: 'conversations.list', kind: 'body', times: 1, body: answer([channel]) });
    const listed = await raw(app, 'GET', `/api/app/installations/${id}/conversations`);
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.parse(listed.text).conversations).toEqual([
      { id: ws.channels.ops, name: 'ops-\ufffd', is_private: false, is_archived: false, is_member: true },
    ]);

    const web = { ...channel, id: ws.channels.web, name: 'web' };
    await sim.control('POST', '/faults', { method: 'conversations.list', kind: 'body', times: 1, body: answer([{ ...channel, id: 'C\udc00' }, web]) });
    const skipped = await raw(app, 'GET', `/api/app/installations/${id}/conversations`);
    expect(skipped.status, skipped.text).toBe(200);
    expect(JSON.parse(skipped.text).conversations).toEqual([web]);
    const logged = logLines(app.logs, 'skipped malformed records');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        list: 'conversations.list',
        skipped: 1,
        records: [{ id: null, reason: 'id: not well-formed text (holds half a surrogate pair)' }],
      }),
    ]);
    expect(skipped.text + app.logs.join('\n')).not.toMatch(/\\ud[89a-f]|[\ud800-\udfff]/i);

    // A list that is no list is the page's: it fails as a whole.
    await sim.control('POST', '/faults', { method: 'conversations.list', kind: 'body', times: 1, body: '{"ok":true,"channels":{}}' });
    const refused = await raw(app, 'GET', `/api/app/installations/${id}/conversations`);
    expect(refused.status, refused.text).toBe(502);
    expect(JSON.parse(refused.text).detail).toBe('Listing conversations failed: the vendor answered malformed.');
  });

  it('refuses a cursor it did not issue for this installation, an expired vendor cursor, and an unknown installation', async () => {
    const sim = await startWebApi();
    const ws = await sim.workspace({ channels: Array.from({ length: 4 }, (_, n) => ({ name: `c${n}` })) });
    const app = await withApp(sim);
    const id = JSON.parse((await raw(app, 'GET', '/api/app/installations')).text).installations[0]?.id as string | undefined;
    expect(id).toBeUndefined();
    const installed = JSON.parse((await raw(app, 'POST', '/api/app/installations', JSON.stringify({ token: ws.token }))).text).installation.id as string;
    const bogus = await raw(app, 'GET', `/api/app/installations/${installed}/conversations?cursor=abc`);
    expect([bogus.status, JSON.parse(bogus.text).error]).toEqual([400, 'invalid_cursor']);
    const first = JSON.parse((await raw(app, 'GET', `/api/app/installations/${installed}/conversations?limit=1`)).text);
    // The cursor names the installation and carries the vendor's cursor, as it always has.
    expect(cursorPayload(first.response_metadata.next_cursor)).toEqual({ k: 'app-conversations', i: installed, c: expect.any(String), s: expect.any(Number) });
    const other = await raw(app, 'GET', `/api/app/installations/other/conversations?cursor=${encodeURIComponent(first.response_metadata.next_cursor)}`);
    expect([other.status, JSON.parse(other.text).error]).toEqual([400, 'invalid_cursor']);
    // Vendor cursors do not last: an old one is a clear 400, start again.
    await sim.settings({ cursorLifetimeMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const expired = await raw(
      app,
      'GET',
      `/api/app/installations/${installed}/conversations?limit=1&cursor=${encodeURIComponent(first.response_metadata.next_cursor)}`,
    );
    expect([expired.status, JSON.parse(expired.text).error]).toEqual([400, 'invalid_cursor']);
    const missing = await raw(app, 'GET', '/api/app/installations/nope/conversations');
    expect([missing.status, JSON.parse(missing.text).error]).toEqual([404, 'installation_not_found']);
  });
});
