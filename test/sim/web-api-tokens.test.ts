/**
 * The spec's token rules over real HTTP: the token response, exchange once, expiry at the
 * lifetime, single-use refresh tokens with a grace period, at most two active tokens, revoke and
 * uninstall; and the misuse counters a rotation test asserts zero on.
 */
import { describe, expect, it } from 'vitest';
import { failure, startWebApi, T0, type WebApiClient } from './web-api-helpers.ts';

const DEFAULT_SCOPES = 'chat:write,channels:read,channels:history,groups:read,groups:history';

/** A workspace whose long-lived bot token was exchanged: the first expiring pair. */
async function exchanged(api: WebApiClient) {
  const ws = await api.workspace();
  const first = await api.exchange(ws.token);
  expect(first.body.ok, JSON.stringify(first.body)).toBe(true);
  return { ws, access: first.body.access_token as string, refresh: first.body.refresh_token as string };
}

const authTest = (api: WebApiClient, token: string) => api.form('auth.test', {}, token);

describe('token response', () => {
  it('oauth.v2.exchange answers every field of the spec for a bot token', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const res = await api.exchange(ws.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      access_token: expect.stringMatching(/^xoxe\./),
      expires_in: 43200,
      refresh_token: expect.any(String),
      token_type: 'bot',
      scope: DEFAULT_SCOPES,
      bot_user_id: ws.botUserId,
      app_id: expect.stringMatching(/^A/),
      team: { name: 'Acme', id: ws.teamId },
      enterprise: null,
      is_enterprise_install: false,
    });
    expect(res.body.refresh_token).not.toBe(res.body.access_token);
  });

  it('the enterprise object is sent for a workspace in an organization', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ enterprise: { id: 'E0123ABC', name: 'Acme Org' } });
    expect((await api.exchange(ws.token)).body.enterprise).toEqual({ id: 'E0123ABC', name: 'Acme Org' });
  });

  it('a user token refreshes in the user form: id, scope, access_token, expires_in, refresh_token, token_type user', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const issued = await api.control('POST', `/workspaces/${ws.teamId}/tokens`, { type: 'user', userId: 'U0PERSON1' });
    expect(issued.body.token).toMatch(/^xoxp-/);
    const pair = await api.exchange(issued.body.token as string);
    const res = await api.refresh(pair.body.refresh_token as string);
    expect(res.body).toEqual({
      ok: true,
      id: 'U0PERSON1',
      scope: DEFAULT_SCOPES,
      access_token: expect.stringMatching(/^xoxe\.xoxp-/),
      expires_in: 43200,
      refresh_token: expect.any(String),
      token_type: 'user',
    });
  });
});

describe('exchange', () => {
  it('the same token cannot be exchanged twice', async () => {
    const api = await startWebApi();
    const { ws } = await exchanged(api);
    expect(failure(await api.exchange(ws.token))).toEqual([200, false, 'token_already_exchanged']);
  });

  it('the long-lived token keeps working after the exchange, and expires at the first refresh', async () => {
    const api = await startWebApi();
    const { ws, refresh } = await exchanged(api);
    expect((await authTest(api, ws.token)).body.ok).toBe(true);
    expect((await api.refresh(refresh)).body.ok).toBe(true);
    expect(failure(await authTest(api, ws.token))).toEqual([200, false, 'token_expired']);
  });

  it('an expiring token cannot be exchanged; an unknown one neither', async () => {
    const api = await startWebApi();
    const { access } = await exchanged(api);
    expect(failure(await api.exchange(access))).toEqual([200, false, 'invalid_token']);
    expect(failure(await api.exchange('xoxb-not-a-token'))).toEqual([200, false, 'invalid_token']);
  });

  it('exchanging a revoked or expired long-lived token is authorization_not_found, counted like any call with it', async () => {
    const api = await startWebApi();
    const revoked = await api.workspace();
    await api.form('auth.revoke', {}, revoked.token);
    expect(failure(await api.exchange(revoked.token))).toEqual([200, false, 'authorization_not_found']);
    expect(await api.misuse(revoked.teamId)).toMatchObject({ total: 1, revokedTokenCalls: 1 });
    // The long-lived token expires at the first refresh: exchanging it again is refused, and counted.
    const { ws, refresh } = await exchanged(api);
    await api.refresh(refresh);
    expect(failure(await api.exchange(ws.token))).toEqual([200, false, 'token_already_exchanged']);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 1, expiredTokenCalls: 1 });
  });

  it('an app without token rotation cannot exchange', async () => {
    const api = await startWebApi({ app: { tokenRotationEnabled: false } });
    const ws = await api.workspace();
    expect(failure(await api.exchange(ws.token))).toEqual([200, false, 'token_rotation_not_enabled']);
  });

  it('token rotation turns on, and cannot be turned off again', async () => {
    const api = await startWebApi({ app: { tokenRotationEnabled: false } });
    expect((await api.control('PUT', '/app', { tokenRotationEnabled: true })).status).toBe(200);
    const off = await api.control('PUT', '/app', { tokenRotationEnabled: false });
    expect(off.status).toBe(409);
    expect(off.body).toMatchObject({ ok: false, error: 'conflict', detail: expect.stringContaining('cannot be turned off') });
    const ws = await api.workspace();
    expect((await api.exchange(ws.token)).body.ok).toBe(true);
  });
});

describe('expiry', () => {
  it('an access token expires at its lifetime to the millisecond, and each late call is counted', async () => {
    const api = await startWebApi();
    await api.setClock(T0);
    await api.settings({ accessTokenLifetimeSeconds: 60 });
    const { ws, access } = await exchanged(api);
    await api.setClock(T0 + 59_999);
    expect((await authTest(api, access)).body.ok).toBe(true);
    await api.setClock(T0 + 60_000);
    expect(failure(await authTest(api, access))).toEqual([200, false, 'token_expired']);
    expect(failure(await api.form('conversations.list', {}, access))).toEqual([200, false, 'token_expired']);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 2, expiredTokenCalls: 2 });
  });

  it('expires_in reports the lifetime set, so clients schedule from the answer', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 5 } });
    const { refresh } = await exchanged(api);
    expect((await api.refresh(refresh)).body.expires_in).toBe(5);
  });
});

describe('refresh', () => {
  it('a refresh gives a new access token and a new refresh token; the old access token still works', async () => {
    const api = await startWebApi();
    const { access, refresh } = await exchanged(api);
    const next = await api.refresh(refresh);
    expect(next.body).toMatchObject({ ok: true, access_token: expect.stringMatching(/^xoxe\./), expires_in: 43200, token_type: 'bot' });
    expect(next.body.access_token).not.toBe(access);
    expect(next.body.refresh_token).not.toBe(refresh);
    expect((await authTest(api, access)).body.ok).toBe(true);
    expect((await authTest(api, next.body.access_token as string)).body.ok).toBe(true);
  });

  it('a spent refresh token is honoured within the grace period and refused after it; both reuses are counted', async () => {
    const api = await startWebApi();
    await api.setClock(T0);
    await api.settings({ refreshGraceMs: 5000 });
    const { ws, refresh } = await exchanged(api);
    const first = await api.refresh(refresh);
    expect(first.body.ok).toBe(true);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 0 });

    await api.setClock(T0 + 4999);
    const retried = await api.refresh(refresh);
    expect(retried.body.ok).toBe(true);
    expect(retried.body.access_token).not.toBe(first.body.access_token);

    await api.setClock(T0 + 5000);
    expect(failure(await api.refresh(refresh))).toEqual([200, false, 'invalid_refresh_token']);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 2, refreshReusedInGrace: 1, refreshReusedAfterGrace: 1 });
    // The token the first use gave is untouched by the reuse.
    expect((await api.refresh(first.body.refresh_token as string)).body.ok).toBe(true);
  });

  it('at most two tokens are active: a refresh that makes a third revokes the oldest', async () => {
    const api = await startWebApi();
    const { ws, access: a0, refresh: r0 } = await exchanged(api);
    const one = await api.refresh(r0);
    const a1 = one.body.access_token as string;
    const two = await api.refresh(one.body.refresh_token as string);
    const a2 = two.body.access_token as string;
    expect(failure(await authTest(api, a0))).toEqual([200, false, 'token_revoked']);
    expect((await authTest(api, a1)).body.ok).toBe(true);
    expect((await authTest(api, a2)).body.ok).toBe(true);
    const state = await api.control('GET', `/workspaces/${ws.teamId}`);
    expect((state.body.activeTokens as unknown[]).length).toBe(2);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 1, revokedTokenCalls: 1 });
  });

  it('an unknown refresh token, a missing one and an access token in its place are refused', async () => {
    const api = await startWebApi();
    const { access } = await exchanged(api);
    expect(failure(await api.refresh('xoxe-1-made-up'))).toEqual([200, false, 'invalid_refresh_token']);
    expect(failure(await api.refresh(access))).toEqual([200, false, 'invalid_refresh_token']);
    const missing = await api.form('oauth.v2.access', { client_id: api.clientId, client_secret: api.clientSecret, grant_type: 'refresh_token' });
    expect(failure(missing)).toEqual([200, false, 'invalid_arguments']);
    const grant = await api.form('oauth.v2.access', { client_id: api.clientId, client_secret: api.clientSecret, grant_type: 'password' });
    expect(failure(grant)).toEqual([200, false, 'invalid_grant_type']);
  });

  it('a client that refreshes before expiry sees many rotations in a few seconds and no misuse', async () => {
    const api = await startWebApi({ settings: { accessTokenLifetimeSeconds: 1, refreshGraceMs: 0 } });
    let { ws, access, refresh } = await exchanged(api);
    let rotations = 0;
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      expect((await authTest(api, access)).body.ok).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      const next = await api.refresh(refresh);
      expect(next.body.ok, JSON.stringify(next.body)).toBe(true);
      ({ access_token: access, refresh_token: refresh } = next.body as { access_token: string; refresh_token: string });
      rotations += 1;
    }
    expect(rotations).toBeGreaterThanOrEqual(4);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 0 });
    const stats = (await api.control('GET', `/workspaces/${ws.teamId}`)).body.stats;
    expect(stats).toMatchObject({ exchanges: 1, refreshes: rotations });
    await new Promise((r) => setTimeout(r, 1100));
    expect(failure(await authTest(api, access))).toEqual([200, false, 'token_expired']);
  });
});

describe('revoke and uninstall', () => {
  it('with rotation, auth.revoke ends that one token; the installation stays and can still refresh', async () => {
    const api = await startWebApi();
    const { ws, refresh } = await exchanged(api);
    const next = await api.refresh(refresh);
    const access = next.body.access_token as string;
    expect((await api.form('auth.revoke', { test: 'true' }, access)).body).toMatchObject({ ok: true, revoked: false });
    expect((await authTest(api, access)).body.ok).toBe(true);
    expect((await api.form('auth.revoke', {}, access)).body).toMatchObject({ ok: true, revoked: true });
    expect(failure(await authTest(api, access))).toEqual([200, false, 'token_revoked']);
    const again = await api.refresh(next.body.refresh_token as string);
    expect(again.body.ok).toBe(true);
    expect((await authTest(api, again.body.access_token as string)).body.ok).toBe(true);
    expect((await api.control('GET', `/workspaces/${ws.teamId}`)).body.status).toBe('installed');
  });

  it('without rotation, auth.revoke ends the whole authorization', async () => {
    const api = await startWebApi({ app: { tokenRotationEnabled: false } });
    const ws = await api.workspace();
    const other = (await api.control('POST', `/workspaces/${ws.teamId}/tokens`, { type: 'bot' })).body.token as string;
    expect((await api.form('auth.revoke', {}, ws.token)).body).toMatchObject({ ok: true, revoked: true });
    expect(failure(await authTest(api, ws.token))).toEqual([200, false, 'token_revoked']);
    expect(failure(await authTest(api, other))).toEqual([200, false, 'token_revoked']);
    expect((await api.control('GET', `/workspaces/${ws.teamId}`)).body.status).toBe('uninstalled');
  });

  it('apps.uninstall needs the client credentials, then revokes every token, refresh tokens too', async () => {
    const api = await startWebApi();
    const { ws, access, refresh } = await exchanged(api);
    expect(failure(await api.form('apps.uninstall', { client_id: api.clientId, client_secret: 'wrong' }, access))).toEqual([200, false, 'bad_client_secret']);
    expect((await authTest(api, access)).body.ok).toBe(true);
    expect((await api.form('apps.uninstall', { client_id: api.clientId, client_secret: api.clientSecret }, access)).body).toEqual({ ok: true });
    expect(failure(await authTest(api, access))).toEqual([200, false, 'token_revoked']);
    expect(failure(await authTest(api, ws.token))).toEqual([200, false, 'token_revoked']);
    expect(failure(await api.refresh(refresh))).toEqual([200, false, 'invalid_refresh_token']);
    expect(await api.misuse(ws.teamId)).toMatchObject({ total: 3, revokedTokenCalls: 2, revokedRefreshUsed: 1 });
    expect((await api.control('GET', `/workspaces/${ws.teamId}`)).body.status).toBe('uninstalled');
  });
});

describe('client credentials and install', () => {
  it('oauth methods check client_id and client_secret, take HTTP Basic, and refuse JSON bodies', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const wrongId = await api.form('oauth.v2.exchange', { client_id: '1.2', client_secret: api.clientSecret, token: ws.token });
    expect(failure(wrongId)).toEqual([200, false, 'invalid_client_id']);
    const wrongSecret = await api.form('oauth.v2.exchange', { client_id: api.clientId, client_secret: 'nope', token: ws.token });
    expect(failure(wrongSecret)).toEqual([200, false, 'bad_client_secret']);
    const asJson = await api.json('oauth.v2.exchange', { client_id: api.clientId, client_secret: api.clientSecret, token: ws.token });
    expect(failure(asJson)).toEqual([200, false, 'invalid_post_type']);
    const basic = await fetch(`${api.url}/api/oauth.v2.exchange`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${btoa(`${api.clientId}:${api.clientSecret}`)}` },
      body: new URLSearchParams({ token: ws.token }),
    });
    expect(((await basic.json()) as { ok: boolean }).ok).toBe(true);
  });

  it('an OAuth code installs once, with an expiring token when rotation is on', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ installed: false });
    expect(ws.token).toBeNull();
    const redirectUri = 'https://app.example/oauth/callback';
    const code = (await api.control('POST', `/workspaces/${ws.teamId}/codes`, { redirectUri })).body.code as string;
    const fields = { client_id: api.clientId, client_secret: api.clientSecret, code, redirect_uri: redirectUri };
    const installed = await api.form('oauth.v2.access', fields);
    expect(installed.body).toMatchObject({
      ok: true,
      access_token: expect.stringMatching(/^xoxe\.xoxb-/),
      expires_in: 43200,
      refresh_token: expect.any(String),
      token_type: 'bot',
      team: { id: ws.teamId, name: 'Acme' },
      authed_user: { id: expect.stringMatching(/^U/) },
    });
    expect(failure(await api.form('oauth.v2.access', fields))).toEqual([200, false, 'invalid_code']);
    const second = (await api.control('POST', `/workspaces/${ws.teamId}/codes`, { redirectUri })).body.code as string;
    expect(failure(await api.form('oauth.v2.access', { ...fields, code: second, redirect_uri: 'https://evil.example/' }))).toEqual([
      200,
      false,
      'bad_redirect_uri',
    ]);
    expect((await api.control('GET', `/workspaces/${ws.teamId}`)).body).toMatchObject({ status: 'installed', stats: { codeInstalls: 1 } });
  });

  it('without rotation an install gives a long-lived token and no refresh token', async () => {
    const api = await startWebApi({ app: { tokenRotationEnabled: false } });
    const ws = await api.workspace({ installed: false });
    const code = (await api.control('POST', `/workspaces/${ws.teamId}/codes`, {})).body.code as string;
    const res = await api.form('oauth.v2.access', { client_id: api.clientId, client_secret: api.clientSecret, code });
    expect(res.body.access_token).toMatch(/^xoxb-/);
    expect(res.body).not.toHaveProperty('refresh_token');
    expect(res.body).not.toHaveProperty('expires_in');
  });
});

describe('the authorize step', () => {
  it('approves at once and redirects with a code and the state, which oauth.v2.access turns into an install', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ installed: false });
    // No path: the code must be redeemable with the same text, not a normalised 'http://127.0.0.1:3000/'.
    const redirectUri = 'http://127.0.0.1:3000';
    const query = new URLSearchParams({
      client_id: api.clientId,
      scope: 'chat:write,channels:read',
      redirect_uri: redirectUri,
      state: 'a b&c',
      team: ws.teamId,
    });
    const res = await fetch(`${api.url}/oauth/v2/authorize?${query}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${redirectUri}/`);
    expect(location.searchParams.get('state')).toBe('a b&c');
    const code = location.searchParams.get('code')!;
    const installed = await api.form('oauth.v2.access', { client_id: api.clientId, client_secret: api.clientSecret, code, redirect_uri: redirectUri });
    expect(installed.body).toMatchObject({ ok: true, scope: 'chat:write,channels:read', team: { id: ws.teamId } });
  });

  it('redirects with error=access_denied when told to refuse, and refuses a wrong client or a non-http redirect', async () => {
    const api = await startWebApi();
    await api.workspace();
    const base = { client_id: api.clientId, redirect_uri: 'https://app.example/cb', state: 's1' };
    const denied = await fetch(`${api.url}/oauth/v2/authorize?${new URLSearchParams({ ...base, deny: '1' })}`, { redirect: 'manual' });
    expect(denied.headers.get('location')).toBe('https://app.example/cb?error=access_denied&state=s1');
    const wrongClient = await fetch(`${api.url}/oauth/v2/authorize?${new URLSearchParams({ ...base, client_id: 'other' })}`, { redirect: 'manual' });
    expect([wrongClient.status, ((await wrongClient.json()) as { error: string }).error]).toEqual([400, 'invalid_client_id']);
    const script = await fetch(`${api.url}/oauth/v2/authorize?${new URLSearchParams({ ...base, redirect_uri: 'javascript:alert(1)' })}`, {
      redirect: 'manual',
    });
    expect([script.status, ((await script.json()) as { error: string }).error]).toEqual([400, 'bad_redirect_uri']);
  });
});
