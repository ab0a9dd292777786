/**
 * The email subscription pages through the service's app, with a real SQLite file and a real SMTP
 * server on loopback: double opt-in through the form and the mailed link, the same answer for known
 * addresses, rate limits, RFC 8058 one-click unsubscribe, the manage page, CSRF and bad links.
 */
import type { ParsedMail } from 'mailparser';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const PUBLIC_URL = 'https://status.example.test';
const DAY_MS = 24 * 60 * 60 * 1000;

type Page = { status: number; headers: Headers; html: string };

describe('email subscription pages', () => {
  let smtp: TestSmtp;
  let service: TestApp;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };

  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    offsetMs = 0;
    smtp.received.length = 0;
    // A fresh archive per test: the rate limits start from zero.
    service = await startTestApp(NO_FEED_URL, {
      clock,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'statuswatch <status@example.test>', PUBLIC_URL },
    });
  });
  afterEach(async () => {
    await service.close();
  });

  const get = async (path: string): Promise<Page> => {
    const res = await service.fetch(service.url + path, { redirect: 'manual' });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  /** A form post as a browser on this site sends it (Origin included), unless `headers` says otherwise. */
  const post = async (path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = { origin: service.url }): Promise<Page> => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
    const res = await service.fetch(service.url + path, { method: 'POST', body, headers, redirect: 'manual' });
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const subscriptions = async () => (await service.admin('GET', '/api/subscriptions')).body.subscriptions as any[];
  /** The path and query of the first link to `path` in a mail, to follow on this service. */
  const linkIn = (mail: ParsedMail, path: string): string => {
    const match = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}(${path}\\?token=[\\w-]+)`).exec(mail.text ?? '');
    expect(match, `a ${path} link in: ${mail.text}`).not.toBeNull();
    return match![1]!;
  };
  const tokenOf = (link: string) => new URL(link, PUBLIC_URL).searchParams.get('token')!;
  const signUp = (email: string, extra: Record<string, string | string[]> = {}) => post('/subscribe', { email, timezone: 'UTC', ...extra });
  /** Signs up and confirms through the pages; returns the subscription as the admin API shows it. */
  async function subscribed(email: string) {
    expect((await signUp(email)).status).toBe(303);
    const link = linkIn(smtp.received.at(-1)!, '/subscribe/confirm');
    expect((await post('/subscribe/confirm', { token: tokenOf(link) })).status).toBe(200);
    return (await subscriptions()).find((s) => s.email === email);
  }

  it('shows a labelled form that works without scripts', async () => {
    const page = await get('/subscribe');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<form method="post" action="/subscribe"');
    expect(page.html).toContain('<label for="sub-email">Email address</label>');
    expect(page.html).toMatch(/<input type="email" id="sub-email" name="email"/);
    expect(page.html).toContain('<label for="sub-service-0">Login/SSO</label>');
    expect(page.html).toContain('<label for="sub-timezone">Time zone for times in emails</label>');
    expect(page.html).toMatch(/<option value="Europe\/Berlin">Europe\/Berlin<\/option>/);
    expect(page.html).toContain('<select id="sub-timezone" name="timezone" data-browser-zone="">'); // app.js may pick the reader's zone
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    // Under no-referrer a browser would post these forms with `Origin: null`.
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('subscribes with double opt-in: the link shows a button, and only the post confirms', async () => {
    const answer = await signUp('ana@example.test', { service: ['Files', 'Messaging'], type: 'outage', timezone: 'Europe/Berlin' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/subscribe/sent');
    expect((await get('/subscribe/sent')).html).toContain('Check your inbox');

    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.subject).toBe('Confirm your statuswatch subscription');
    expect(JSON.stringify(mail.to)).toContain('ana@example.test');
    const [pending] = await subscriptions();
    expect(pending).toMatchObject({
      email: 'ana@example.test',
      status: 'pending',
      filters: { services: ['Files', 'Messaging'], types: ['outage'] },
      timezone: 'Europe/Berlin',
    });

    // What a mail scanner does: fetch the link. Nothing may change.
    const link = linkIn(mail, '/subscribe/confirm');
    const confirmPage = await get(link);
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.headers.get('cache-control')).toBe('no-store');
    expect(confirmPage.html).toContain('ana@example.test');
    expect(confirmPage.html).toContain(`<input type="hidden" name="token" value="${tokenOf(link)}"/>`);
    expect(confirmPage.html).toContain('Confirm subscription</button>');
    expect((await subscriptions())[0].status).toBe('pending');

    const confirmed = await post('/subscribe/confirm', { token: tokenOf(link) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.html).toContain('You are subscribed');
    expect((await subscriptions())[0].status).toBe('active');

    const again = await post('/subscribe/confirm', { token: tokenOf(link) });
    expect(again.status).toBe(409);
    expect(again.html).toContain('Already confirmed');
  });

  it('answers a known address exactly as a new one, and mails it a manage link instead', async () => {
    const first = await signUp('bo@example.test');
    await subscribed('bo@example.test'); // a second sign-up of a pending address: a fresh confirm link
    const known = await signUp('bo@example.test');
    expect([known.status, known.headers.get('location'), known.html]).toEqual([first.status, first.headers.get('location'), first.html]);

    expect(smtp.received.map((m) => m.subject)).toEqual([
      'Confirm your statuswatch subscription',
      'Confirm your statuswatch subscription',
      'Your statuswatch subscription',
    ]);
    linkIn(smtp.received[2]!, '/manage');
    const all = await subscriptions();
    expect(all).toHaveLength(1);
    expect(all[0].status).toBe('active');
  });

  it('refuses a fourth sign-up for one address within the hour with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await signUp('cy@example.test')).status).toBe(303);
    const refused = await signUp('cy@example.test', { service: 'Files' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.html).toContain('Too many sign-ups');
    expect(refused.html).toContain('value="cy@example.test"'); // the form keeps what was typed
    expect(refused.html).toMatch(/<input type="checkbox" id="sub-service-\d+" name="service" value="Files" checked=""/);
    expect(smtp.received).toHaveLength(3);
  });

  it('shows what is wrong with the form, by each field, and sends nothing', async () => {
    const page = await signUp('not-an-address', { timezone: 'Mars/Olympus_Mons' });
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/<div class="error-summary" role="alert"/);
    expect(page.html).toContain('<a href="#sub-email">Enter an email address, such as ops@example.com.</a>');
    expect(page.html).toContain('<a href="#sub-timezone">Choose a time zone from the list.</a>');
    expect(page.html).toMatch(
      /<input type="email" id="sub-email" name="email" value="not-an-address"[^>]*aria-describedby="sub-email-hint sub-email-error" aria-invalid="true"/,
    );
    expect(page.html).toMatch(/<select id="sub-timezone"[^>]*aria-invalid="true"/);
    expect(smtp.received).toHaveLength(0);
    expect(await subscriptions()).toHaveLength(0);
  });

  it('refuses an email that names more than one recipient, and sends nothing', async () => {
    for (const email of HOSTILE_ADDRESSES) {
      const page = await signUp(email);
      expect(page.status, email).toBe(400);
      expect(page.html).toContain('<a href="#sub-email">Enter an email address, such as ops@example.com.</a>');
    }
    const api = await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'ops@example.com, eve@evil.example' });
    expect([api.status, api.body.detail]).toEqual([400, 'email: email must be one address such as ops@example.com: it is a list of addresses, not one']);
    expect(smtp.received).toHaveLength(0);
    expect(await subscriptions()).toHaveLength(0);
  });

  it('refuses a service the vendor never named, says which ones it knows, and sends nothing', async () => {
    const page = await signUp('filez@example.test', { service: ['Files', 'Filez'] });
    expect(page.status).toBe(400);
    expect(page.html).toMatch(/<div class="error-summary" role="alert"/);
    expect(page.html).toContain('Unknown service &quot;Filez&quot;');
    expect(page.html).toContain('Workspace/Org Administration');
    expect(smtp.received).toHaveLength(0);
    expect(await subscriptions()).toHaveLength(0);
  });

  it('refuses forms posted from another site, but not the one-click unsubscribe', async () => {
    const fromHere = await signUp('dee@example.test');
    expect(fromHere.status).toBe(303); // the same post from this site is fine
    smtp.received.length = 0;
    const crossOrigin = await post('/subscribe', { email: 'eve@example.test' }, { origin: 'https://evil.example' });
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.html).toContain('Form refused');
    const crossSite = await post('/subscribe', { email: 'eve@example.test' }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(smtp.received).toHaveLength(0);
    expect((await subscriptions()).map((s) => s.email)).toEqual(['dee@example.test']);
  });

  it('unsubscribes at once on an RFC 8058 one-click post with no Origin and no cookies', async () => {
    expect((await seedArchive(service.store, [], { now: clock.now() })).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    const sub = await subscribed('fay@example.test');
    await seedArchive(service.store, [rawIncident({ id: 7 })], { now: clock.now() });
    await service.deliverNow();
    const mail = smtp.received.at(-1)!;
    const header = (name: string) => mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '');
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const url = /^<(.+)>$/.exec(header('list-unsubscribe') ?? '')![1]!;
    const link = url.slice(PUBLIC_URL.length);
    expect(link).toMatch(/^\/unsubscribe\?token=/);

    // GET only asks.
    const ask = await get(link);
    expect(ask.status).toBe(200);
    expect(ask.html).toContain('fay@example.test');
    expect(ask.html).toContain('Unsubscribe</button>');
    expect(await subscriptions()).toHaveLength(1);

    // What a mail provider sends: multipart or urlencoded, no Origin, no cookie.
    const res = await service.fetch(service.url + link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect((await subscriptions()).find((s) => s.id === sub.id)).toBeUndefined();

    const repeat = await service.fetch(service.url + link, { method: 'POST', body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) });
    expect(repeat.status).toBe(404);
  });

  it('changes filters and zone on the manage page, and unsubscribes from it', async () => {
    await subscribed('gus@example.test');
    await signUp('gus@example.test', { service: 'Search' }); // known: mails a manage link, changes nothing
    const link = linkIn(smtp.received.at(-1)!, '/manage');
    const form = await get(link);
    expect(form.status).toBe(200);
    expect(form.html).toContain('gus@example.test');
    expect(form.html).toMatch(/<option value="UTC" selected="">/);
    expect(form.html).not.toContain('data-browser-zone'); // a saved zone is never replaced by the browser's
    expect(form.html).not.toMatch(/name="service" value="[^"]*" checked=""/);

    const token = tokenOf(link);
    const bad = await post('/manage', { token, service: 'Files', timezone: 'Nowhere/Special' });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/name="service" value="Files" checked=""/);
    expect((await subscriptions())[0].timezone).toBe('UTC');

    const saved = await post('/manage', { token, service: ['Files', 'Search'], type: 'Outage', timezone: 'america/new_york' });
    expect(saved.status).toBe(200);
    expect(saved.html).toContain('Changes saved');
    expect((await subscriptions())[0]).toMatchObject({
      filters: { services: ['Files', 'Search'], types: ['outage'] },
      timezone: 'America/New_York',
      status: 'active',
    });
    const reopened = await get(link);
    expect(reopened.html).toMatch(/name="service" value="Files" checked=""/);
    expect(reopened.html).toMatch(/<option value="America\/New_York" selected="">/);

    expect((await post('/manage/unsubscribe', { token }, { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect(await subscriptions()).toHaveLength(1);
    const gone = await post('/manage/unsubscribe', { token });
    expect(gone.status).toBe(200);
    expect(gone.html).toContain('You are unsubscribed');
    expect(await subscriptions()).toHaveLength(0);
  });

  it('says what to do about expired, unknown and missing link tokens', async () => {
    await signUp('hal@example.test');
    const link = linkIn(smtp.received[0]!, '/subscribe/confirm');
    offsetMs = 7 * DAY_MS + 60_000;
    const expired = await get(link);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('This link has expired');
    expect(expired.html).toContain('<a href="/subscribe">Sign up again</a>');
    expect((await post('/subscribe/confirm', { token: tokenOf(link) })).status).toBe(410);
    expect((await subscriptions())[0].status).toBe('pending');

    const unknown = await get(`/manage?token=${'A'.repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('This link does not work');
    expect(unknown.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // A confirm token is no unsubscribe token.
    expect((await get(link.replace('/subscribe/confirm', '/unsubscribe'))).status).toBe(404);
    const missing = await get('/unsubscribe');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('missing its token');
  });
});
