/**
 * How a call reaches a method, as a new client meets it: the token in a header or a form field,
 * form, JSON and query arguments, the exact authentication errors, scopes, unknown methods and
 * bad bodies, each answered in the `{ok: false, error}` shape.
 */
import { describe, expect, it } from 'vitest';
import { failure, startWebApi } from './web-api-helpers.ts';

describe('authentication errors', () => {
  it('no token is not_authed, a made-up one invalid_auth, a refresh token invalid_auth', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const pair = await api.exchange(ws.token);
    expect(failure(await api.form('auth.test', {}))).toEqual([200, false, 'not_authed']);
    expect(failure(await api.form('auth.test', {}, 'xoxb-1-2-made-up'))).toEqual([200, false, 'invalid_auth']);
    expect(failure(await api.form('auth.test', {}, pair.body.refresh_token as string))).toEqual([200, false, 'invalid_auth']);
    const res = await api.form('auth.test', {});
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ ok: false, error: 'not_authed', detail: expect.any(String) });
  });

  it('auth.test says which team and bot a token is', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ botName: 'status-bot' });
    const res = await api.form('auth.test', {}, ws.token);
    expect(res.body).toMatchObject({
      ok: true,
      team: 'Acme',
      team_id: ws.teamId,
      user: 'status-bot',
      user_id: ws.botUserId,
      bot_id: expect.stringMatching(/^B/),
      url: `${api.url}/`,
    });
  });

  it('a method the token lacks the scope for is missing_scope, naming what is needed and what was granted', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ scopes: ['channels:read'] });
    const res = await api.form('chat.postMessage', { channel: ws.channels.status!, text: 'hi' }, ws.token);
    expect(res.body).toMatchObject({ ok: false, error: 'missing_scope', needed: 'chat:write', provided: 'channels:read' });
    expect((await api.form('conversations.list', {}, ws.token)).body.ok).toBe(true);
  });

  it('a method the sim does not speak is 404 unknown_method', async () => {
    const api = await startWebApi();
    const res = await api.form('users.list', {});
    expect(failure(res)).toEqual([404, false, 'unknown_method']);
  });
});

describe('argument forms', () => {
  it('form-encoded, JSON, multipart and query-string calls all work; the token may be a form field but not a JSON field', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    expect((await api.form('chat.postMessage', { channel, text: 'form' }, ws.token)).body.ok).toBe(true);
    expect((await api.form('chat.postMessage', { channel, text: 'form field token', token: ws.token })).body.ok).toBe(true);
    expect((await api.json('chat.postMessage', { channel, text: 'json' }, ws.token)).body.ok).toBe(true);
    expect(failure(await api.json('chat.postMessage', { channel, text: 'json field token', token: ws.token }))).toEqual([200, false, 'not_authed']);
    const multipart = new FormData();
    multipart.set('channel', channel);
    multipart.set('text', 'multipart');
    const mp = await fetch(`${api.url}/api/chat.postMessage`, { method: 'POST', headers: { Authorization: `Bearer ${ws.token}` }, body: multipart });
    expect(((await mp.json()) as { ok: boolean }).ok).toBe(true);
    const viaGet = await fetch(`${api.url}/api/conversations.history?channel=${channel}`, { headers: { Authorization: `Bearer ${ws.token}` } });
    const history = (await viaGet.json()) as { messages: { text: string }[] };
    expect(history.messages.map((m) => m.text)).toEqual(['multipart', 'json', 'form field token', 'form']);
  });

  it('bad bodies are refused with the vendor codes, and nothing is posted', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const post = (body: string, type: string) =>
      fetch(`${api.url}/api/chat.postMessage`, { method: 'POST', headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': type }, body }).then(
        async (r) => [r.status, ((await r.json()) as { error: string }).error],
      );
    expect(await post('{"channel":', 'application/json')).toEqual([200, 'invalid_json']);
    expect(await post('["a"]', 'application/json')).toEqual([200, 'json_not_object']);
    expect(await post('<x/>', 'application/xml')).toEqual([200, 'invalid_post_type']);
    expect(await post(`channel=${ws.channels.status}&text=${'a'.repeat(1_000_001)}`, 'application/x-www-form-urlencoded')).toEqual([413, 'request_too_large']);
    const channel = (await api.control('GET', `/channels/${ws.channels.status}`)).body;
    expect(channel.messageCount).toBe(0);
  });
});

describe('paths that name nothing', () => {
  it('answer 404 in the one error shape, and a long made-up method name is logged cut short', async () => {
    const api = await startWebApi();
    const longName = `x${'y'.repeat(5000)}`;
    for (const path of ['/api/', '/api/a/b', '/nothing-here', '/channels/C0MISSING', `/api/${longName}`]) {
      const res = await fetch(`${api.url}${path}`, { method: 'POST' });
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toMatchObject({ ok: false, error: expect.stringMatching(/^(unknown_method|not_found)$/), detail: expect.any(String) });
    }
    const calls = (await api.control('GET', '/calls')).body.calls as { method: string }[];
    expect(calls.at(-1)!.method).toHaveLength(100);
  });
});
