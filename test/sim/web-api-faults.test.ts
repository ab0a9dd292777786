/** Rate limits (429 with Retry-After) and injected faults of the simulated Web API, and the control API's refusals. */
import { describe, expect, it } from 'vitest';
import { failure, startWebApi, T0 } from './web-api-helpers.ts';

describe('rate limits', () => {
  it('past the limit a method answers 429 with Retry-After and does nothing; other workspaces and methods go on', async () => {
    const api = await startWebApi();
    await api.setClock(T0);
    const ws = await api.workspace();
    const other = await api.workspace({ name: 'Other' });
    expect((await api.control('PUT', '/rate-limits', { method: 'chat.postMessage', limit: 2, windowMs: 30_000 })).status).toBe(200);
    const post = (token: string, channel: string) => api.form('chat.postMessage', { channel, text: 'x' }, token);
    expect((await post(ws.token, ws.channels.status!)).status).toBe(200);
    await api.setClock(T0 + 10_000);
    expect((await post(ws.token, ws.channels.status!)).status).toBe(200);
    const limited = await post(ws.token, ws.channels.status!);
    expect(failure(limited)).toEqual([429, false, 'ratelimited']);
    // The first call leaves the window 30 s after it was made: 20 s from now.
    expect(limited.headers.get('retry-after')).toBe('20');
    expect((await post(other.token, other.channels.status!)).status).toBe(200);
    expect((await api.form('conversations.list', {}, ws.token)).status).toBe(200);
    expect(((await api.control('GET', `/channels/${ws.channels.status}`)).body as { messageCount: number }).messageCount).toBe(2);
    await api.setClock(T0 + 30_000);
    expect((await post(ws.token, ws.channels.status!)).status).toBe(200);
  });
});

describe('faults', () => {
  it('an error fault answers {ok:false} for `times` calls, then the method works again', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const added = await api.control('POST', '/faults', { method: 'chat.postMessage', kind: 'error', error: 'fatal_error', times: 2 });
    expect(added.status).toBe(201);
    const post = () => api.form('chat.postMessage', { channel: ws.channels.status!, text: 'x' }, ws.token);
    expect(failure(await post())).toEqual([200, false, 'fatal_error']);
    expect(failure(await post())).toEqual([200, false, 'fatal_error']);
    expect((await post()).body.ok).toBe(true);
  });

  it('a status fault answers a non-JSON error page; a ratelimited one 429 with the Retry-After asked for', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    await api.control('POST', '/faults', { method: '*', kind: 'status', status: 503, times: 1 });
    await api.control('POST', '/faults', { method: 'auth.test', kind: 'ratelimited', retryAfterSeconds: 7, times: 1 });
    const broken = await fetch(`${api.url}/api/auth.test`, { method: 'POST', headers: { Authorization: `Bearer ${ws.token}` } });
    expect([broken.status, broken.headers.get('content-type'), broken.headers.get('retry-after')]).toEqual([503, 'text/html; charset=utf-8', '1']);
    const limited = await api.form('auth.test', {}, ws.token);
    expect(failure(limited)).toEqual([429, false, 'ratelimited']);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await api.form('auth.test', {}, ws.token)).body.ok).toBe(true);
  });

  it('a timeout fault never answers; closing the sim ends the held call', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    await api.control('POST', '/faults', { method: 'auth.test', kind: 'timeout', times: 1 });
    const outcome = await fetch(`${api.url}/api/auth.test`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.token}` },
      signal: AbortSignal.timeout(200),
    }).then(
      (r) => `answered ${r.status}`,
      (e: Error) => e.name,
    );
    expect(outcome).toBe('TimeoutError');
    await api.control('POST', '/faults', { method: 'auth.test', kind: 'timeout' });
    const pending = fetch(`${api.url}/api/auth.test`, { method: 'POST', headers: { Authorization: `Bearer ${ws.token}` } }).then(
      (r) => r.status,
      () => 'closed',
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await api.sim.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('closed');
  });

  it('an "after" fault on a refresh rotates the tokens but loses the answer: retrying within grace works and is counted', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const pair = await api.exchange(ws.token);
    await api.control('POST', '/faults', { method: 'oauth.v2.access', kind: 'status', status: 502, after: true, times: 1 });
    const lost = await api.refresh(pair.body.refresh_token as string);
    expect(lost.status).toBe(502);
    expect((await api.control('GET', `/workspaces/${ws.teamId}`)).body.stats).toMatchObject({ refreshes: 1 });
    const retried = await api.refresh(pair.body.refresh_token as string);
    expect(retried.body.ok).toBe(true);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 1, refreshReusedInGrace: 1 });
  });

  it('the call log says what each call got', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    await api.control('POST', '/faults', { method: 'chat.postMessage', kind: 'error', times: 1 });
    await api.form('chat.postMessage', { channel: ws.channels.status!, text: 'x' }, ws.token);
    await api.form('auth.test', {}, ws.token);
    await api.form('auth.test', {});
    const calls = (await api.control('GET', '/calls')).body.calls as Record<string, unknown>[];
    expect(calls.map(({ method, status, error, teamId, fault }) => ({ method, status, error, teamId, fault }))).toEqual([
      { method: 'chat.postMessage', status: 200, error: 'internal_error', teamId: null, fault: 'error' },
      { method: 'auth.test', status: 200, error: null, teamId: ws.teamId, fault: null },
      { method: 'auth.test', status: 200, error: 'not_authed', teamId: null, fault: null },
    ]);
  });
});

describe('the control API', () => {
  it('refuses bad input in the one error shape and changes nothing', async () => {
    const api = await startWebApi();
    const bad = [
      await api.control('POST', '/faults', { method: 'users.list', kind: 'error' }),
      await api.control('PUT', '/settings', { accessTokenLifetimeSeconds: 0 }),
      await api.control('PUT', '/rate-limits', { method: 'auth.test', limit: 0, windowMs: 1000 }),
      await api.control('POST', '/workspaces', { name: '' }),
      await api.control('POST', '/workspaces', { name: 'x', channels: [{ name: 'Has Spaces' }] }),
    ];
    for (const res of bad) expect(res.body, JSON.stringify(res.body)).toEqual({ ok: false, error: 'invalid_request', detail: expect.any(String) });
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    const state = (await api.control('GET', '/state')).body;
    expect(state).toMatchObject({ faults: [], rateLimits: [], workspaces: [], settings: { accessTokenLifetimeSeconds: 43200 } });
    const notJson = await fetch(`${api.url}/_sim/settings`, { method: 'PUT', body: '{' });
    expect([notJson.status, ((await notJson.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
    expect((await api.control('GET', '/workspaces/T0NOPE')).status).toBe(404);
  });
});
