/**
 * Installing the workspace app from the admin pages, against the simulated Web API over
 * real HTTP, a real SQLite file and a real SMTP server: the OAuth flow with a state usable once by
 * the browser that started it, a pasted token, uninstall, and a broken installation that the admin
 * is told about once and that a re-install makes active again. No page ever shows a token or a stack.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebApi, type WebApiClient } from '../sim/web-api-helpers.ts';

const ORIGIN = 'http://statuswatch.localhost';
const ADMIN_EMAIL = 'ops@example.test';

type Page = { status: number; headers: Headers; html: string };

describe('installing the workspace app from the admin pages', () => {
  let smtp: TestSmtp;
  let sim: WebApiClient;
  let service: TestApp | null = null;
  afterEach(async () => {
    await service?.close();
    await smtp.close();
    service = null;
  });

  async function start(): Promise<TestApp> {
    smtp = await startSmtp();
    sim = await startWebApi();
    service = await startTestApp(NO_FEED_URL, {
      env: {
        PUBLIC_URL: ORIGIN,
        APP_API_URL: sim.url,
        APP_CLIENT_ID: sim.clientId,
        APP_CLIENT_SECRET: sim.clientSecret,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'statuswatch <status@example.test>',
        ADMIN_EMAIL,
      },
    });
    return service;
  }

  const get = async (path: string, cookie = ''): Promise<Page> => {
    const res = await service!.fetch(path.startsWith('http') ? path : ORIGIN + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const post = async (path: string, fields: Record<string, string>, cookie: string): Promise<Page> => {
    const res = await service!.fetch(ORIGIN + path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { origin: ORIGIN, cookie },
      redirect: 'manual',
    });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  async function signIn(): Promise<string> {
    const res = await post('/admin/sign-in', { token: ADMIN_TOKEN, next: '/admin/app' }, '');
    expect(res.status).toBe(303);
    return res.headers.getSetCookie()[0]!.split(';')[0]!;
  }
  const csrfOn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const noSecrets = (page: Page) => {
    expect(page.html).not.toMatch(/xox[a-z]-/);
    expect(page.html).not.toMatch(/\bat .*\.ts:\d+/);
  };

  /**
   * "Add to workspace" up to the vendor's redirect back: the callback URL and the browser's install
   * cookies (`installCookie` as the callback gets it, `startCookie` as the next start sends it).
   * `browser`: the start cookie of an earlier install in the same browser, none for a new browser.
   */
  async function startInstall(
    session: string,
    authorizeExtra = '',
    browser = '',
  ): Promise<{ callback: string; installCookie: string; startCookie: string; setCookie: string }> {
    const started = await get('/admin/app/install', browser ? `${session}; ${browser}` : session);
    expect(started.status).toBe(303);
    const authorize = started.headers.get('location')!;
    expect(authorize.startsWith(`${sim.url}/oauth/v2/authorize?`)).toBe(true);
    const url = new URL(authorize);
    expect(url.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/app/oauth/callback`);
    expect(url.searchParams.get('client_id')).toBe(sim.clientId);
    const installCookies = started.headers.getSetCookie().filter((c) => c.startsWith('statuswatch_app_install='));
    const setCookie = installCookies.find((c) => /path=\/app\/oauth\/callback/i.test(c))!;
    const startCookie = installCookies.find((c) => /path=\/admin\/app\/install/i.test(c))!;
    // The vendor approves (the sim clicks Allow) and redirects back with a code and our state.
    const approved = await fetch(authorize + authorizeExtra, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = approved.headers.get('location')!;
    expect(new URL(callback).searchParams.get('state')).toBe(url.searchParams.get('state'));
    return { callback, installCookie: setCookie.split(';')[0]!, startCookie: startCookie.split(';')[0]!, setCookie };
  }

  it('installs through OAuth with a one-time state bound to the browser that started it', async () => {
    await start();
    await sim.workspace({ name: 'Acme', installed: false });
    const session = await signIn();
    const { callback, installCookie, setCookie } = await startInstall(session);
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/app/oauth/callback', 'max-age=600']));

    const done = await get(callback, installCookie);
    expect(done.status, done.html).toBe(303);
    expect(done.headers.get('location')).toBe('/admin/app?done=installed');
    const [installation] = await service!.store.listInstallations(10);
    expect(installation).toMatchObject({ state: 'active' });

    const page = await get('/admin/app?done=installed', session);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Installed: the app can post');
    expect(page.html).toContain(installation!.teamId);
    expect(page.html).toContain(installation!.botUserId);
    expect(page.html).toContain('chat:write');
    noSecrets(page);

    // The same callback again: the state was used.
    const reused = await get(callback, installCookie);
    expect(reused.status).toBe(400);
    expect(reused.html).toContain('used already');
    noSecrets(reused);
  });

  it('refuses a callback from a browser that did not start it, or with a made-up state, and leaves the state to its own browser', async () => {
    await start();
    await sim.workspace({ installed: false });
    const session = await signIn();
    const first = await startInstall(session);
    const second = await startInstall(session);
    // Another browser's cookie, or none: refused, and the state is not spent by it.
    for (const [callback, cookie] of [
      [first.callback, second.installCookie],
      [second.callback, ''],
      [`${ORIGIN}/app/oauth/callback?code=x&state=made-up`, first.installCookie],
    ] as const) {
      const res = await get(callback, cookie);
      expect(res.status, callback).toBe(400);
      expect(res.html).toContain('This install link is not valid');
      noSecrets(res);
    }
    expect(await service!.store.listInstallations(10)).toEqual([]);

    // The admin's own browser then comes back with its state: it installs.
    const own = await get(first.callback, first.installCookie);
    expect(own.status, own.html).toBe(303);
    expect(own.headers.get('location')).toBe('/admin/app?done=installed');
    expect(await service!.store.listInstallations(10)).toMatchObject([{ state: 'active' }]);
  });

  it('lets two install tabs of one browser both finish, in either order', async () => {
    await start();
    await sim.workspace({ installed: false });
    const session = await signIn();
    const first = await startInstall(session);
    // The second tab's start carries the browser's cookie back: both states are bound to it.
    const second = await startInstall(session, '', first.startCookie);
    expect(second.installCookie).toBe(first.installCookie);

    for (const tab of [second, first]) {
      const done = await get(tab.callback, tab.installCookie);
      expect(done.status, done.html).toBe(303);
      expect(done.headers.get('location')).toBe('/admin/app?done=installed');
    }
    expect(await service!.store.listInstallations(10)).toMatchObject([{ state: 'active' }]);
  });

  it('says plainly when the admin cancels on the vendor’s page, or the vendor refuses the code', async () => {
    await start();
    await sim.workspace({ installed: false });
    const session = await signIn();
    const denied = await startInstall(session, '&deny=1');
    const cancelled = await get(denied.callback, denied.installCookie);
    expect(cancelled.status).toBe(400);
    expect(cancelled.html).toContain('Install cancelled');
    expect(cancelled.html).toContain('nothing was installed');

    const forged = await startInstall(session);
    const url = new URL(forged.callback);
    url.searchParams.set('code', 'not-a-code');
    const refused = await get(url.toString(), forged.installCookie);
    expect(refused.status).toBe(502);
    expect(refused.html).toContain('the vendor answered invalid_code');
    noSecrets(refused);
    expect(await service!.store.listInstallations(10)).toEqual([]);
  });

  it('needs an admin session to start an install', async () => {
    await start();
    const res = await get('/admin/app/install');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/sign-in?next=%2Fadmin%2Fapp%2Finstall');
  });

  it('installs from a pasted token once, never shows it again, and says so when it was exchanged before', async () => {
    await start();
    const ws = await sim.workspace();
    const session = await signIn();
    const csrf = csrfOn((await get('/admin/app', session)).html);
    const installed = await post('/admin/app/installations', { csrf, token: ws.token }, session);
    expect(installed.status).toBe(303);
    expect(installed.headers.get('location')).toBe('/admin/app?done=installed');

    const again = await post('/admin/app/installations', { csrf, token: ws.token }, session);
    expect(again.status).toBe(409);
    expect(again.html).toContain('That token was exchanged before');
    expect(again.html).not.toContain(ws.token);
    noSecrets(again);
    expect(service!.logs.join('\n')).not.toContain(ws.token);
  });

  it('shows a workspace name with half a surrogate pair as one U+FFFD, as stored and on the page', async () => {
    // JSON may carry "\ud800", which UTF-8 cannot: the vendor's text is made well formed where it
    // is read, so the store and every page hold the same text.
    await start();
    const ws = await sim.workspace({ name: 'Acme \ud800 Corp' });
    const session = await signIn();
    const csrf = csrfOn((await get('/admin/app', session)).html);
    const installed = await post('/admin/app/installations', { csrf, token: ws.token }, session);
    expect(installed.status, installed.html).toBe(303);
    const [installation] = await service!.store.listInstallations(10);
    expect(installation!.teamName).toBe('Acme \ufffd Corp');
    const page = await get('/admin/app', session);
    expect(page.html.match(/Acme \ufffd+ Corp/g)).toEqual(['Acme \ufffd Corp']);
  });

  it('uninstalls: the vendor revokes every token and statuswatch removes its own', async () => {
    await start();
    const ws = await sim.workspace();
    const session = await signIn();
    const csrf = csrfOn((await get('/admin/app', session)).html);
    await post('/admin/app/installations', { csrf, token: ws.token }, session);
    const [installation] = await service!.store.listInstallations(10);
    const res = await post(`/admin/app/installations/${installation!.id}/uninstall`, { csrf }, session);
    expect(res.status).toBe(303);
    expect((await sim.control('GET', `/workspaces/${ws.teamId}`)).body.status).toBe('uninstalled');
    expect(await service!.store.findInstallation(installation!.id)).toMatchObject({ state: 'uninstalled', accessTokenSealed: null, refreshTokenSealed: null });
    const page = await get('/admin/app?done=uninstalled', session);
    expect(page.html).toContain('Uninstalled: the vendor revoked its tokens');
    // Without the session's CSRF token nothing happens.
    expect((await post(`/admin/app/installations/${installation!.id}/uninstall`, {}, session)).status).toBe(403);
  });

  it('marks an installation broken when the vendor says its grant is gone, tells the admin once, and a re-install resumes it', async () => {
    await start();
    const ws = await sim.workspace();
    const session = await signIn();
    const csrf = csrfOn((await get('/admin/app', session)).html);
    await post('/admin/app/installations', { csrf, token: ws.token }, session);
    const [installation] = await service!.store.listInstallations(10);
    // Someone uninstalls the app on the vendor's side: every token is revoked there.
    await revokeEverything(ws.teamId);

    for (let n = 0; n < 3; n++) {
      const listed = await service!.admin('GET', `/api/app/installations/${installation!.id}/conversations`);
      expect(listed.status).toBe(409);
    }
    // The revoked token is replaced once (rotation may revoke one token alone); the refresh then
    // finds the refresh token revoked too.
    expect(await service!.store.findInstallation(installation!.id)).toMatchObject({ state: 'broken', reason: 'invalid_refresh_token' });
    // The notice is sent before the answer that found the break (the SMTP server has parsed it by
    // its 250), and by that one call only: three calls, one mail.
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.subject).toContain(`needs to be installed again in ${ws.teamId}`);
    expect(smtp.received[0]!.text).toContain('held, not lost');
    expect(smtp.received[0]!.text).not.toMatch(/xox/);

    const page = await get('/admin/app', session);
    expect(page.html).toContain('An installation needs you');
    expect(page.html).toContain('invalid_refresh_token');

    // Re-install through OAuth: the same installation, active again.
    const again = await startInstall(session, `&team=${ws.teamId}`);
    expect((await get(again.callback, again.installCookie)).status).toBe(303);
    expect(await service!.store.findInstallation(installation!.id)).toMatchObject({ state: 'active', reason: null });
    expect((await get('/admin/app', session)).html).not.toContain('An installation needs you');
  });

  /** Revokes every token of a workspace on the vendor's side, as an uninstall from the workspace would. */
  async function revokeEverything(teamId: string): Promise<void> {
    const minted = await sim.control('POST', `/workspaces/${teamId}/tokens`, {});
    await sim.form('apps.uninstall', { client_id: sim.clientId, client_secret: sim.clientSecret }, minted.body.token as string);
  }
});
