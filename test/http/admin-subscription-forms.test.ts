/**
 * The admin pages' subscription forms through the service's app (a real SQLite file): create each
 * kind, edit, rotate the signing secret, pause, resume and test, each a form post with the session
 * and its CSRF token; refusals re-render the form with the API's own message and the values kept.
 * A real webhook receiver checks the secret shown once really signs what is sent.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputValues, signInAdmin } from '../helpers/admin-page-client.ts';
import { useAppWithoutFeed } from '../helpers/app-on-vendor.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const HOSTILE = '"><script>alert(1)</script>';

describe('admin subscription forms', () => {
  const t = useAppWithoutFeed({ side: startWebhookReceiver, env: () => ({ WEBHOOK_ALLOW_PRIVATE: 'true' }), signIn: true });

  const apiList = async () => (await t.service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string }[];
  const secretOn = (html: string) => /<code>(whsec_[^<]+)<\/code>/.exec(html)?.[1] ?? '';
  const verify = (secret: string, index: number) => {
    const request = t.side.received[index]!;
    return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  };

  it('points from the list to a form for every kind, the on-call tools and chats among them', async () => {
    const list = await t.admin.get('/admin/subscriptions');
    expect(list.status).toBe(200);
    const invitation = /<a href="\/admin\/new-subscription">New subscription<\/a>:([^<]*)<\/p>/.exec(list.html)?.[1] ?? '';
    for (const kind of ['webhook', 'team-chat channel', 'email', 'workspace app', 'PagerDuty', 'Opsgenie', 'Microsoft Teams', 'Discord'])
      expect(invitation.toLowerCase()).toContain(kind.toLowerCase());
  });

  it('offers every kind of subscription, each on its own form', async () => {
    const page = await t.admin.get('/admin/new-subscription');
    expect(page.status).toBe(200);
    for (const kind of ['webhook', 'channel', 'email', 'teams', 'discord']) expect(page.html).toContain(`href="/admin/new-subscription?channel=${kind}"`);
    expect(page.html).toMatch(/<input type="hidden" name="channel" value="webhook"/);
    expect(page.html).toContain('name="url"');
    const email = await t.admin.get('/admin/new-subscription?channel=email');
    expect(email.html).toMatch(/<input type="hidden" name="channel" value="email"/);
    expect(email.html).toContain('name="email"');
    expect(email.html).not.toContain('name="url"');
    // New subscriptions hear of the monitor's blindness unless unticked, as the API makes them.
    expect(inputValues(page.html, 'monitor')).toEqual(['on']);
    expect((await t.admin.get('/admin/subscriptions')).html).toContain('href="/admin/new-subscription"');
  });

  it('creates a webhook with filters, shows its secret once, and that secret signs what is sent', async () => {
    const created = await t.admin.post('/admin/new-subscription', {
      channel: 'webhook',
      url: t.side.url,
      service: ['Files', 'Messaging'],
      type: 'outage',
      event: ['incident.created', 'monitor.blind'],
      timezone: 'Europe/Berlin',
    });
    expect(created.status).toBe(201);
    const secret = secretOn(created.html);
    expect(secret).toMatch(/^whsec_/);
    expect(created.html).toContain('shown only this once');

    const [listed] = await apiList();
    const stored = (await t.service.admin('GET', `/api/subscriptions/${listed!.id}`)).body.subscription;
    expect(stored).toMatchObject({
      channel: 'webhook',
      url: t.side.url,
      status: 'active',
      origin: 'admin',
      timezone: 'Europe/Berlin',
      filters: { services: ['Files', 'Messaging'], types: ['outage'], events: ['incident.created', 'monitor.blind'], monitor: false },
    });
    // Never again: not on its page, not in the list.
    expect((await t.admin.get(`/admin/subscriptions/${listed!.id}`)).html).not.toContain(secret);
    expect((await t.admin.get('/admin/subscriptions')).html).not.toContain(secret);

    const tested = await t.admin.post(`/admin/subscriptions/${listed!.id}/test`, {});
    expect(tested.html).toContain('All were accepted.');
    expect(t.side.received.length).toBeGreaterThan(0);
    expect(() => verify(secret, 0)).not.toThrow();
  });

  it('creates a team-chat channel subscription, with monitor news on by default', async () => {
    const created = await t.admin.post('/admin/new-subscription', { channel: 'channel', url: t.side.url, monitor: 'on', timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(secretOn(created.html)).toBe('');
    const [listed] = await apiList();
    expect((await t.service.admin('GET', `/api/subscriptions/${listed!.id}`)).body.subscription).toMatchObject({
      channel: 'channel',
      url: t.side.url,
      filters: { monitor: true },
    });
  });

  it('creates Teams and Discord subscriptions whose URL is never shown again, and edits them keeping it', async () => {
    const token = 'form-t0ken-authorizes-posting';
    for (const [channel, url] of [
      ['teams', `https://prod.westeurope.logic.example.test/workflows/1/triggers/manual/paths/invoke?sig=${token}`],
      ['discord', `https://discord.example.test/api/webhooks/99/${token}`],
    ] as const) {
      const form = await t.admin.get(`/admin/new-subscription?channel=${channel}`);
      expect(form.html).toMatch(new RegExp(`<input type="hidden" name="channel" value="${channel}"`));
      const created = await t.admin.post('/admin/new-subscription', { channel, url, monitor: 'on', timezone: 'UTC' });
      expect(created.status, channel).toBe(201);
      expect(created.html).not.toContain(token);
      const listed = ((await apiList()) as { id: string; channel: string }[]).find((x) => x.channel === channel)!;
      const page = await t.admin.get(`/admin/subscriptions/${listed.id}`);
      expect(page.html).toContain(new URL(url).host);
      expect(page.html).not.toContain(token);
      expect(inputValues(page.html, 'url')).toEqual(['']);
      // An edit with the URL left empty keeps it and changes the rest.
      const saved = await t.admin.post(`/admin/subscriptions/${listed.id}`, { url: '', type: 'outage', timezone: 'UTC' });
      expect(saved.status, channel).toBe(303);
      const stored = (await t.service.admin('GET', `/api/subscriptions/${listed.id}`)).body.subscription;
      expect(stored).toMatchObject({ channel, url_host: new URL(url).host, filters: { types: ['outage'] } });
      expect(stored.secretSealed).toBeUndefined();
    }
    expect((await t.admin.get('/admin/subscriptions')).html).not.toContain(token);
  });

  it('refuses what the API refuses, with the API’s own words, the form filled as it was sent', async () => {
    const bad = { channel: 'webhook', url: `ftp://hooks.example.test/${HOSTILE}`, service: 'Files', timezone: 'Europe/Berlin' };
    const page = await t.admin.post('/admin/new-subscription', bad);
    expect(page.status).toBe(400);
    const api = await t.service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: bad.url,
      filters: { services: ['Files'], monitor: false },
      timezone: 'Europe/Berlin',
    });
    expect(api.status).toBe(400);
    // The same check and the same message: the form cannot accept what the API refuses, nor the reverse.
    const escapedDetail = (api.body.detail as string).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    expect(page.html).toContain(escapedDetail.slice(1));
    expect(page.html).toContain('role="alert"');
    expect(inputValues(page.html, 'url')).toEqual([bad.url.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')]);
    expect(page.html).not.toContain('<script>alert(1)');
    expect(inputValues(page.html, 'service')).toEqual(['Files']);
    expect(page.html).toMatch(/<option value="Europe\/Berlin" selected/);

    const unknown = await t.admin.post('/admin/new-subscription', { channel: 'webhook', url: t.side.url, service: 'Filez' });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('Filez');
    expect(unknown.html).toContain('Messaging'); // the known names, to pick from

    const zone = await t.admin.post('/admin/new-subscription', { channel: 'webhook', url: t.side.url, timezone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.html).toContain('IANA time zone');

    // No mail set up: said above the form, not a crash.
    const email = await t.admin.post('/admin/new-subscription', { channel: 'email', email: 'ops@example.test' });
    expect(email.status).toBe(409);
    expect(email.html).toContain('Email is not configured');
    expect(inputValues(email.html, 'email')).toEqual(['ops@example.test']);

    const kind = await t.admin.post('/admin/new-subscription', { channel: 'pigeon', url: t.side.url });
    expect(kind.status).toBe(400);
    expect(await apiList()).toEqual([]);
  });

  it('creates nothing without the session’s CSRF token or from another site', async () => {
    const fields = { channel: 'webhook', url: t.side.url };
    expect((await t.admin.post('/admin/new-subscription', { ...fields, csrf: 'forged' })).status).toBe(403);
    expect((await t.admin.post('/admin/new-subscription', fields, { origin: 'https://evil.example' })).status).toBe(403);
    const signedOut = await t.service.fetch(`${t.service.url}/admin/new-subscription`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { origin: t.service.url },
      redirect: 'manual',
    });
    expect(signedOut.status).toBe(401);
    expect(await apiList()).toEqual([]);
    // The same form with the session's token and this site's Origin is accepted.
    expect((await t.admin.post('/admin/new-subscription', fields)).status).toBe(201);
    expect(await apiList()).toHaveLength(1);
  });

  it('edits target, filters and zone on the subscription’s page; a refused edit changes nothing and keeps what was typed', async () => {
    const { id } = (await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: t.side.url, filters: { types: ['outage'] } })).body
      .subscription;
    const page = await t.admin.get(`/admin/subscriptions/${id}`);
    expect(page.status).toBe(200);
    expect(inputValues(page.html, 'url')).toEqual([t.side.url]);
    expect(inputValues(page.html, 'type')).toEqual(['outage']);
    expect(inputValues(page.html, 'monitor')).toEqual(['on']);

    const refused = await t.admin.post(`/admin/subscriptions/${id}`, { url: 'not a url', service: 'Calls', timezone: 'Asia/Tokyo' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('url must be an https: or http: URL');
    expect(inputValues(refused.html, 'url')).toEqual(['not a url']);
    expect(inputValues(refused.html, 'service')).toEqual(['Calls']);
    expect((await t.service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.url).toBe(t.side.url);

    const other = `${t.side.url}/other`;
    const saved = await t.admin.post(`/admin/subscriptions/${id}`, { url: other, service: ['Calls', 'Files'], timezone: 'Asia/Tokyo' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`/admin/subscriptions/${id}?done=saved`);
    expect((await t.admin.get(saved.headers.get('location')!)).html).toContain('Changes saved.');
    expect((await t.service.admin('GET', `/api/subscriptions/${id}`)).body.subscription).toMatchObject({
      url: other,
      timezone: 'Asia/Tokyo',
      // Unticked boxes mean "everything", as an empty filter does; the monitor box was unticked.
      filters: { services: ['Calls', 'Files'], monitor: false },
    });
    expect((await t.service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.filters.types).toBeUndefined();

    expect((await t.admin.get('/admin/subscriptions/sub_nope')).status).toBe(404);
    expect((await t.admin.post('/admin/subscriptions/sub_nope', { url: other })).status).toBe(404);
  });

  it('rotates a webhook’s secret from its page: the new one is shown once and signs what follows', async () => {
    const { subscription, secret: oldSecret } = (await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: t.side.url })).body;
    const page = await t.admin.get(`/admin/subscriptions/${subscription.id}`);
    expect(page.html).toContain(`action="/admin/subscriptions/${subscription.id}/rotate-secret"`);
    const rotated = await t.admin.post(`/admin/subscriptions/${subscription.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    const secret = secretOn(rotated.html);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(oldSecret);
    expect(rotated.html).toContain('keeps signing for 24 hours');
    expect((await t.admin.get(`/admin/subscriptions/${subscription.id}`)).html).toContain('rotating: the previous one also signs until');

    await t.admin.post(`/admin/subscriptions/${subscription.id}/test`, {});
    expect(() => verify(secret, 0)).not.toThrow();

    const { id: channelId } = (await t.service.admin('POST', '/api/subscriptions', { channel: 'channel', url: t.side.url })).body.subscription;
    expect((await t.admin.get(`/admin/subscriptions/${channelId}`)).html).not.toContain('rotate-secret');
    expect((await t.admin.post(`/admin/subscriptions/${channelId}/rotate-secret`, {})).status).toBe(409);
  });

  it('pauses and resumes from the subscription’s page', async () => {
    const { id } = (await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: t.side.url })).body.subscription;
    expect((await t.admin.get(`/admin/subscriptions/${id}`)).html).toContain(`action="/admin/subscriptions/${id}/pause"`);
    // The buttons are on the page (the list only links to it), and lead back there.
    const pause = await t.admin.post(`/admin/subscriptions/${id}/pause`, {});
    expect(pause.status).toBe(303);
    expect(pause.headers.get('location')).toBe(`/admin/subscriptions/${id}?done=paused`);
    const paused = await t.admin.get(pause.headers.get('location')!);
    expect(paused.html).toContain('Subscription paused');
    expect(paused.html).toContain('paused by an admin');
    expect(paused.html).toContain(`action="/admin/subscriptions/${id}/resume"`);
    const resume = await t.admin.post(`/admin/subscriptions/${id}/resume`, {});
    expect(resume.headers.get('location')).toBe(`/admin/subscriptions/${id}?done=resumed`);
    const tested = await t.admin.post(`/admin/subscriptions/${id}/test`, {});
    expect(tested.html).toContain(`href="/admin/subscriptions/${id}">Back to the subscription</a>`);
    // The result is headed by the subscription's title, as its page is.
    const where = new URL(t.side.url);
    expect(tested.html).toContain(`<h1>Test sent to ${where.host}${where.pathname}</h1>`);
    expect(paused.html).toContain(`<h1>Subscription: ${where.host}${where.pathname}</h1>`);
    expect((await t.service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.status).toBe('active');
  });
});

describe('admin email subscription form', () => {
  let smtp: TestSmtp;
  let service: TestApp;

  beforeAll(async () => {
    smtp = await startSmtp();
    service = await startTestApp(NO_FEED_URL, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'statuswatch <status@example.test>' } });
  });
  afterAll(async () => {
    await service.close();
    await smtp.close();
  });

  it('creates an email subscription, active at once, whose test reaches the address', async () => {
    const admin = await signInAdmin(service);
    const created = await admin.post('/admin/new-subscription', { channel: 'email', email: ' ops@example.test ', monitor: 'on', timezone: 'UTC' });
    expect(created.status).toBe(201);
    const { subscriptions } = (await service.admin('GET', '/api/subscriptions')).body;
    expect(subscriptions).toMatchObject([{ channel: 'email', email: 'ops@example.test', status: 'active' }]);
    const tested = await admin.post(`/admin/subscriptions/${subscriptions[0].id}/test`, {});
    expect(tested.html).toContain('All were accepted.');
    expect(smtp.received.length).toBeGreaterThan(0);
    expect(smtp.received[0]!.to).toMatchObject({ text: 'ops@example.test' });
  });
});
