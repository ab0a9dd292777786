/**
 * The admin pages through the service's app (a real SQLite file, no port): sign-in and its cookie, pages that need
 * it, CSRF tokens and Origin checks on every form, no-store, escaping of hostile strings, and a
 * replay through the page form that a real webhook receiver sees. Refused payloads come from real
 * polls of the simulated vendor; the news replayed is seeded into the archive (seed-archive.ts).
 */
import { describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { ADMIN_TOKEN, startTestApp } from '../helpers/app-service.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

type Page = { status: number; headers: Headers; html: string };

const HOSTILE_URL = 'https://hooks.example.test/<script>alert(1)</script>?q="><img src=x onerror=alert(2)>';

describe('admin pages', () => {
  const t = useAppOnVendor({ side: startWebhookReceiver, env: () => ({ WEBHOOK_ALLOW_PRIVATE: 'true' }) });

  const get = async (path: string, cookie?: string): Promise<Page> => {
    const res = await t.service.fetch(t.service.url + path, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const post = async (path: string, fields: Record<string, string>, options: { cookie?: string; origin?: string | null } = {}): Promise<Page> => {
    const origin = options.origin === undefined ? t.service.url : options.origin;
    const headers: Record<string, string> = { ...(origin ? { origin } : {}), ...(options.cookie ? { cookie: options.cookie } : {}) };
    const res = await t.service.fetch(t.service.url + path, { method: 'POST', body: new URLSearchParams(fields), headers, redirect: 'manual' });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  /** Signs in through the form; returns the cookie to send back, and the raw Set-Cookie. */
  async function signIn(): Promise<{ cookie: string; setCookie: string }> {
    const res = await post('/admin/sign-in', { token: ADMIN_TOKEN, next: '/admin/subscriptions' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin/subscriptions');
    const setCookie = res.headers.getSetCookie()[0] ?? '';
    return { cookie: setCookie.split(';')[0]!, setCookie };
  }
  const csrfOn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  async function webhook(url = t.side.url) {
    const res = await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url });
    expect(res.status).toBe(201);
    return res.body.subscription as { id: string };
  }

  it('signs in with the right token only, into an HttpOnly SameSite=Strict cookie scoped to /admin', async () => {
    const form = await get('/admin/sign-in');
    expect(form.status).toBe(200);
    expect(form.html).toContain('<label for="admin-token">Admin token</label>');
    expect(form.headers.get('cache-control')).toBe('no-store');

    const wrong = await post('/admin/sign-in', { token: `${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect(wrong.html).toContain('That is not the admin token');

    const { setCookie } = await signIn();
    const attributes = setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/admin', `max-age=${12 * 60 * 60}`]));
    expect(attributes).not.toContain('secure'); // PUBLIC_URL is unset, so http: Secure only with an https PUBLIC_URL

    // A sign-in form posted from another site is refused, right token or not.
    expect((await post('/admin/sign-in', { token: ADMIN_TOKEN }, { origin: 'https://evil.example' })).status).toBe(403);
    // Only paths under /admin are followed after signing in.
    expect((await post('/admin/sign-in', { token: ADMIN_TOKEN, next: '//evil.example/admin' })).headers.get('location')).toBe('/admin');
  });

  it('never locks the token holder out: guesses from their address only delay them by seconds', async () => {
    // A stranger behind the same proxy (no TRUST_PROXY: one address for all) guesses as fast as
    // the throttle lets them, told each time how long to wait.
    await t.service.close();
    let skewMs = 0;
    t.service = await startTestApp(t.vendor.url, { clock: { now: () => Date.now() + skewMs } });
    const waits: number[] = [];
    for (let wrong = 0; wrong < 15; ) {
      const res = await post('/admin/sign-in', { token: `guess-${wrong}` });
      if (res.status === 401) wrong++;
      else {
        expect(res.status).toBe(429);
        waits.push(Number(res.headers.get('retry-after')));
        skewMs += waits.at(-1)! * 1000;
      }
    }
    expect(waits).toEqual([1, 2, 4, 8, 10, 10, 10, 10, 10, 10]);
    // The admin, mid-attack: asked to wait the same few seconds, then let in.
    const early = await post('/admin/sign-in', { token: ADMIN_TOKEN });
    expect(early.status).toBe(429);
    expect(early.headers.getSetCookie()).toEqual([]);
    const waitSeconds = Number(early.headers.get('retry-after'));
    expect(waitSeconds).toBeGreaterThan(0);
    expect(waitSeconds).toBeLessThanOrEqual(10);
    expect(early.html).toContain(`Wait ${waitSeconds} second`);
    skewMs += waitSeconds * 1000;
    const { cookie } = await signIn();
    expect((await get('/admin', cookie)).status).toBe(200);
  });

  it('lets a browser that signed in before straight in while a stranger at its address is throttled', async () => {
    // Frozen time: the one-second wait the guesses earn must not run out while a slower store
    // (D1) serves twenty of them at once.
    await t.service.close();
    const nowMs = Date.now();
    t.service = await startTestApp(t.vendor.url, { clock: { now: () => nowMs } });
    const first = await post('/admin/sign-in', { token: ADMIN_TOKEN });
    const device =
      first.headers
        .getSetCookie()
        .find((c) => c.startsWith('statuswatch_admin_device='))
        ?.split(';')[0] ?? '';
    expect(device).not.toBe('');
    // A stranger behind the same proxy guesses without pause; even the right token from a
    // browser the service has not seen must wait.
    const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => post('/admin/sign-in', { token: `guess-${i}` })));
    expect(guesses.filter((g) => g.status === 429).length).toBeGreaterThan(0);
    expect((await post('/admin/sign-in', { token: ADMIN_TOKEN })).status).toBe(429);
    const [name, value] = device.split('=') as [string, string];
    expect(
      (await post('/admin/sign-in', { token: ADMIN_TOKEN }, { cookie: `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}` })).status,
    ).toBe(429);
    // The known browser, mid-attack: in at once.
    const attack = Promise.all(Array.from({ length: 20 }, (_, i) => post('/admin/sign-in', { token: `more-${i}` })));
    const known = await post('/admin/sign-in', { token: ADMIN_TOKEN }, { cookie: device });
    await attack;
    expect(known.status).toBe(303);
    expect((await get('/admin', known.headers.getSetCookie()[0]!.split(';')[0]!)).status).toBe(200);
  });

  it('ends the session on the server at sign-out: the old cookie opens nothing afterwards', async () => {
    const { cookie } = await signIn();
    const other = await signIn();
    const csrf = csrfOn((await get('/admin', cookie)).html);
    expect((await post('/admin/sign-out', { csrf }, { cookie })).status).toBe(303);
    // A copy of the cookie kept from before (a shared computer, a stolen cookie jar) is refused.
    const reused = await get('/admin/subscriptions', cookie);
    expect(reused.status).toBe(303);
    expect(reused.headers.get('location')).toBe('/admin/sign-in?next=%2Fadmin%2Fsubscriptions');
    expect((await post('/admin/sign-out', { csrf }, { cookie })).status).toBe(401);
    // Other sessions are not affected.
    expect((await get('/admin', other.cookie)).status).toBe(200);
  });

  it('ends every session of the old ADMIN_TOKEN when a new one is set, and keeps them across a plain restart', async () => {
    const newToken = 'a-new-admin-token-9876543210';
    const { cookie } = await signIn();
    const restart = async (env: Record<string, string>) => {
      const dir = t.service.dir;
      await t.service.close();
      t.service = await startTestApp(t.vendor.url, { dir, env });
    };
    await restart({});
    expect((await get('/admin', cookie)).status).toBe(200);

    await restart({ ADMIN_TOKEN: newToken });
    expect((await get('/admin', cookie)).status).toBe(303);
    const oldBearer = await t.service.fetch(`${t.service.url}/api/admin/polls`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(oldBearer.status).toBe(401);
    const fresh = await post('/admin/sign-in', { token: newToken });
    expect(fresh.status).toBe(303);

    // Deleted, not just refused: going back to the old token does not bring the session back.
    await restart({});
    expect((await get('/admin', cookie)).status).toBe(303);
    expect((await get('/admin', fresh.headers.getSetCookie()[0]!.split(';')[0]!)).status).toBe(303);
  });

  it('keeps at most the newest 100 sessions', async () => {
    const first = await signIn();
    const rest = [];
    for (let i = 0; i < 100; i++) rest.push(await signIn());
    expect((await get('/admin', first.cookie)).status).toBe(303);
    expect((await get('/admin', rest[0]!.cookie)).status).toBe(200);
    expect((await get('/admin', rest.at(-1)!.cookie)).status).toBe(200);
  });

  it('marks the cookie Secure, as __Secure-, exactly when PUBLIC_URL is https, even over a proxy that forwards plain http', async () => {
    await t.service.close();
    t.service = await startTestApp(t.vendor.url, { env: { PUBLIC_URL: 'https://status.example.test' } });
    const { cookie, setCookie } = await signIn();
    expect(cookie).toMatch(/^__Secure-statuswatch_admin=/);
    expect(setCookie.split(';').map((a) => a.trim().toLowerCase())).toEqual(expect.arrayContaining(['secure', 'httponly', 'path=/admin']));
    expect((await get('/admin', cookie)).status).toBe(200);
  });

  it('sends every page without a valid session to sign-in, and every page with no-store', async () => {
    for (const path of ['/admin', '/admin/subscriptions', '/admin/deliveries', '/admin/polls']) {
      const out = await get(path);
      expect(out.status, path).toBe(303);
      expect(out.headers.get('location'), path).toBe(`/admin/sign-in?next=${encodeURIComponent(path)}`);
      expect(out.headers.get('cache-control'), path).toBe('no-store');
    }
    const { cookie } = await signIn();
    const [name, value] = cookie.split('=') as [string, string];
    const forged = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await get('/admin/subscriptions', forged)).status).toBe(303);
    for (const path of ['/admin', '/admin/subscriptions', '/admin/deliveries', '/admin/polls']) {
      const page = await get(path, cookie);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('cache-control'), path).toBe('no-store');
      expect(page.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(page.html, path).toMatch(/<nav aria-label="Admin">/);
    }
    // A post without a session does nothing.
    const sub = await webhook();
    expect((await post(`/admin/subscriptions/${sub.id}/pause`, { csrf: 'x' })).status).toBe(401);
    expect((await t.service.admin('GET', `/api/subscriptions/${sub.id}`)).body.subscription.status).toBe('active');
  });

  it('says the admin area is disabled when ADMIN_TOKEN is unset', async () => {
    const plain = await startTestApp(t.vendor.url, { env: { ADMIN_TOKEN: '' } });
    try {
      for (const path of ['/admin', '/admin/sign-in']) {
        const res = await plain.fetch(plain.url + path, { redirect: 'manual' });
        expect(res.status, path).toBe(403);
        expect(await res.text(), path).toContain('Admin area disabled');
      }
    } finally {
      await plain.close();
    }
  });

  it('needs the session CSRF token and a same-site Origin on every form', async () => {
    const sub = await webhook();
    const { cookie } = await signIn();
    const list = await get('/admin/subscriptions', cookie);
    const csrf = csrfOn(list.html);
    expect(csrf).not.toBe('');
    // The list links to the subscription's page, where its buttons are.
    expect(list.html).toContain(`href="/admin/subscriptions/${sub.id}">Change…</a>`);
    expect(list.html).not.toContain(`action="/admin/subscriptions/${sub.id}/pause"`);
    const own = await get(`/admin/subscriptions/${sub.id}`, cookie);
    expect(csrfOn(own.html)).toBe(csrf);
    for (const action of ['pause', 'test', 'delete']) expect(own.html, action).toContain(`action="/admin/subscriptions/${sub.id}/${action}"`);
    const status = async () => (await t.service.admin('GET', `/api/subscriptions/${sub.id}`)).body.subscription.status;

    expect((await post(`/admin/subscriptions/${sub.id}/pause`, {}, { cookie })).status).toBe(403);
    const other = await signIn(); // another session's token does not pass for this one
    const otherCsrf = csrfOn((await get('/admin/subscriptions', other.cookie)).html);
    expect(otherCsrf).not.toBe(csrf);
    expect((await post(`/admin/subscriptions/${sub.id}/pause`, { csrf: otherCsrf }, { cookie })).status).toBe(403);
    expect((await post(`/admin/subscriptions/${sub.id}/pause`, { csrf }, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect(await status()).toBe('active');

    const paused = await post(`/admin/subscriptions/${sub.id}/pause`, { csrf }, { cookie });
    expect(paused.status).toBe(303);
    expect(paused.headers.get('location')).toBe(`/admin/subscriptions/${sub.id}?done=paused`);
    expect(await status()).toBe('paused');
    const after = await get(`/admin/subscriptions/${sub.id}?done=paused`, cookie);
    expect(after.html).toContain('Subscription paused');
    expect(after.html).toContain('paused by an admin');

    expect((await post(`/admin/subscriptions/${sub.id}/resume`, { csrf }, { cookie })).status).toBe(303);
    expect(await status()).toBe('active');
    expect((await post(`/admin/subscriptions/${sub.id}/delete`, { csrf }, { cookie })).status).toBe(303);
    expect((await t.service.admin('GET', `/api/subscriptions/${sub.id}`)).status).toBe(404);

    const out = await post('/admin/sign-out', { csrf }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^statuswatch_admin=;.*Max-Age=0/i);
  });

  it('escapes hostile targets and refused payloads', async () => {
    await webhook(HOSTILE_URL);
    await t.vendor.fault({ target: 'v2/current', kind: 'html' });
    await t.service.poll();
    await t.service.poll(); // the same page again: kept once, and counted
    const { cookie } = await signIn();

    const list = await get('/admin/subscriptions', cookie);
    expect(list.html).toContain('/&lt;script&gt;alert(1)&lt;/script&gt;?q=&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(list.html).not.toContain('<script>alert');
    expect(list.html).not.toContain('<img src=x');

    const polls = await get('/admin/polls', cookie);
    const id = /href="\/admin\/polls\/([^"]+)"/.exec(polls.html)?.[1];
    expect(id).toBeTruthy();
    const run = await get(`/admin/polls/${id}`, cookie);
    expect(run.status).toBe(200);
    expect(run.html).toMatch(/<pre class="payload"[^>]*>&lt;html&gt;&lt;body&gt;maintenance&lt;\/body&gt;&lt;\/html&gt;<\/pre>/);
    expect(run.html).not.toContain('<body>maintenance');
    expect(run.html).toContain('The same body came 2 times');
  });

  it('gives a refused payload a warning accent, never the green of all clear', async () => {
    await t.vendor.fault({ target: 'v2/current', kind: 'html' });
    await t.service.poll();
    const { cookie } = await signIn();
    const polls = await get('/admin/polls', cookie);
    const id = /href="\/admin\/polls\/([^"]+)"/.exec(polls.html)?.[1];
    const run = await get(`/admin/polls/${id}`, cookie);
    const card = /<article class="([^"]*)" aria-labelledby="rejected-0">/.exec(run.html);
    expect(card, 'the refused payload is shown in a card').toBeTruthy();
    const classes = (card?.[1] ?? '').split(' ');

    // What a reader sees is the stylesheet's last word on the card's left border.
    const css = (await (await t.service.fetch(`${t.service.url}/style.css`)).text()).replace(/\/\*[\s\S]*?\*\//g, '');
    let borderColour = '';
    for (const rule of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      const selectors = (rule[1] ?? '').split(',').map((sel) => sel.trim());
      const applies = selectors.some(
        (sel) =>
          /^\.admin-card(\.[\w-]+)*$/.test(sel) &&
          sel
            .split('.')
            .slice(1)
            .every((cls) => classes.includes(cls)),
      );
      if (!applies) continue;
      const decl = /border-left(?:-color)?\s*:\s*([^;]+);/g;
      for (const m of (rule[2] ?? '').matchAll(decl)) borderColour = m[1] ?? '';
    }
    expect(borderColour).toMatch(/var\(--(warning|danger)-/);
    expect(borderColour).not.toContain('--ok-');
  });

  it('keeps each date in the admin tables on one line', async () => {
    const css = (await (await t.service.fetch(`${t.service.url}/style.css`)).text()).replace(/\/\*[\s\S]*?\*\//g, '');
    const rules = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)];
    const forTableDates = rules.filter((r) => (r[1] ?? '').split(',').some((sel) => /^\.data-table\s+(td\s+)?time$/.test(sel.trim())));
    expect(forTableDates.map((r) => r[2] ?? '').join(';')).toMatch(/white-space\s*:\s*nowrap/);
  });

  it('replays a delivery from its page, and all since a date; the receiver gets the same webhook-id', async () => {
    expect((await seedArchive(t.service.store, [])).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    const sub = await webhook();
    await seedArchive(t.service.store, [rawIncident({ id: 9 })]);
    await t.service.deliverNow();
    expect(t.side.received).toHaveLength(1);

    const { cookie } = await signIn();
    // The poll read one incident: each source says so in words, "1 incident", not "1 incidents".
    const polls = (await get('/admin/polls', cookie)).html;
    expect(polls).toMatch(/: HTTP 200, 1 incident, \d+ ms/);
    expect(polls).not.toMatch(/\b1 incidents\b/);
    const list = await get(`/admin/deliveries?subscription=${sub.id}`, cookie);
    const deliveryId = /<a href="\/admin\/deliveries\/(\d+)">/.exec(list.html)?.[1];
    expect(deliveryId).toBeTruthy();
    const detail = await get(`/admin/deliveries/${deliveryId}`, cookie);
    expect(detail.html).toContain('1 attempt');
    expect(detail.html).toContain(t.side.received[0]!.headers['webhook-id']);

    const replay = await post(`/admin/deliveries/${deliveryId}/replay`, { csrf: csrfOn(detail.html) }, { cookie });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe(`/admin/deliveries/${deliveryId}?done=replayed`);
    expect((await t.service.admin('GET', `/api/deliveries/${deliveryId}`)).body.delivery.state).toBe('pending');
    await t.service.deliverNow();
    expect(t.side.received).toHaveLength(2);
    expect(t.side.received[1]!.headers['webhook-id']).toBe(t.side.received[0]!.headers['webhook-id']);
    expect((await get(`/admin/deliveries/${deliveryId}?done=replayed`, cookie)).html).toContain('2 attempts');

    const all = await post('/admin/delivery-replays', { csrf: csrfOn(list.html), since: '2000-01-01', state: 'done' }, { cookie });
    expect(all.status).toBe(303);
    expect(all.headers.get('location')).toBe('/admin/deliveries?replayed=1');
    expect((await get('/admin/deliveries?replayed=1', cookie)).html).toContain('1 delivery queued to be sent again');
    // The count comes from the URL: anything but a whole number says nothing.
    for (const odd of ['-3', '', '1e3', '2.5']) expect((await get(`/admin/deliveries?replayed=${odd}`, cookie)).html).not.toContain('queued to be sent again');
    await t.service.deliverNow();
    expect(t.side.received).toHaveLength(3);

    const bad = await post('/admin/delivery-replays', { csrf: csrfOn(list.html), since: 'last tuesday' }, { cookie });
    expect(bad.status).toBe(400);
  });

  it('refuses a replay since a time without an offset on the page and the API alike, queuing nothing', async () => {
    expect((await seedArchive(t.service.store, [])).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    const sub = await webhook();
    await seedArchive(t.service.store, [rawIncident({ id: 9 })]);
    await t.service.deliverNow();
    expect(t.side.received).toHaveLength(1);
    const { cookie } = await signIn();
    const csrf = csrfOn((await get('/admin/deliveries', cookie)).html);

    // 10:00 where? A server in another zone would read another instant: both faces say so, in one sentence.
    const noOffset = '2000-01-01T10:00:00';
    const sentence = `since: expected a date (2026-07-01) or an ISO 8601 time with offset, got "${noOffset}"`;
    const api = await t.service.admin('POST', '/api/delivery-replays', { since: noOffset, subscription: sub.id });
    expect(api.status).toBe(400);
    expect(api.body).toEqual({ ok: false, error: 'invalid_request', detail: sentence });
    const page = await post('/admin/delivery-replays', { csrf, since: noOffset, subscription: sub.id }, { cookie });
    expect(page.status).toBe(400);
    expect(page.html).toContain(sentence.replaceAll('"', '&quot;'));

    // Nothing was queued: the one delivery is still done, and nothing more arrives.
    const deliveries = await t.service.admin('GET', `/api/deliveries?subscription=${sub.id}`);
    expect(deliveries.body.deliveries.map((d: { state: string }) => d.state)).toEqual(['done']);
    await t.service.deliverNow();
    expect(t.side.received).toHaveLength(1);
    // With the offset, the same time replays it.
    expect((await t.service.admin('POST', '/api/delivery-replays', { since: `${noOffset}Z`, subscription: sub.id })).body).toEqual({ ok: true, replayed: 1 });
  });

  it('sends a test of each event type from the list, and shows how each went', async () => {
    const sub = await webhook();
    const { cookie } = await signIn();
    const csrf = csrfOn((await get('/admin/subscriptions', cookie)).html);
    const page = await post(`/admin/subscriptions/${sub.id}/test`, { csrf }, { cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain('All were accepted.');
    expect(page.html).toContain('<th scope="row">incident.note_edited</th>');
    expect(page.html).toContain('<th scope="row">monitor.blind</th>');
    expect(page.html).toContain('<th scope="row">component.status_changed</th>');
    // One of each: five about incidents, two about the monitor, one about a page's component.
    expect(t.side.received).toHaveLength(8);
  });
});
