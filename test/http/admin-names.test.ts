/**
 * The admin pages speak in names, through the service's app (a real SQLite file, a real SMTP
 * server, the simulated SCIM directory over loopback): a group subscription is "Support (10
 * members)" on the subscriptions, subscription and deliveries pages and in the flash of its
 * creation, its group id on a detail line; a list that goes on past its page says so instead of
 * counting the page; the overview's list of sections has every section the navigation has.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { type AdminPageClient, signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { control, startScim } from '../sim/scim-helpers.ts';

describe('the admin speaks in names', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let directory: RunningSimulatedScim;
  let groupId = '';
  let service: TestApp;
  let admin: AdminPageClient;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
    await vendor.close();
  });
  beforeEach(async () => {
    await vendor.setIncidents([]);
    directory = await startScim({ clock: Date.now });
    const seed = await control(directory, 'POST', '/seed', { users: 20, groups: [{ displayName: 'Support', members: 10 }] });
    groupId = seed.groups[0].id;
    service = await startTestApp(vendor.url, {
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'status@example.test', SCIM_URL: directory.url, SCIM_TOKEN: directory.token, WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    admin = await signInAdmin(service);
  });
  afterEach(async () => {
    await service.close();
  });

  it('titles a group subscription by its group’s name and members on every page, the group id on a detail line', async () => {
    const created = await admin.post('/admin/new-subscription', { channel: 'email', email: '', group: 'Support', timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.html).toContain('Subscription created for <strong class="target">Support (10 members)</strong>.');
    expect(created.html).not.toContain(`scim-group:${groupId}`);
    const [subscription] = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string }[];
    const id = subscription!.id;

    const list = await admin.get('/admin/subscriptions');
    expect(list.html).toContain(
      `<a class="subscription-title" href="/admin/subscriptions/${id}">Support (10 members)</a><span class="id-detail" title="directory group ${groupId}">directory group ${groupId}</span>`,
    );
    expect(list.html).not.toContain(`scim-group:${groupId}`);
    const own = await admin.get(`/admin/subscriptions/${id}`);
    expect(own.html).toContain('<strong class="target">Support (10 members)</strong>');
    expect(own.html).toContain('<h1>Subscription: Support (10 members)</h1>');
    expect(own.html).toContain('<title>Subscription: Support (10 members) · admin · statuswatch</title>');
    // Without ADMIN_EMAIL a group's test goes nowhere: the refusal names the group too.
    const refused = await admin.post(`/admin/subscriptions/${id}/test`, {});
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('<h1 id="error-title">Test not sent to Support (10 members)</h1>');
    expect(refused.html).toContain('set ADMIN_EMAIL.');

    expect((await service.poll()).outcome).toBe('ok');
    await vendor.setIncidents([rawIncident({ id: 9, title: 'Search is slow' })]);
    await service.poll();
    const deliveries = await admin.get('/admin/deliveries');
    expect(deliveries.html).toContain(`email: <a class="subscription-title" href="/admin/subscriptions/${id}">Support (10 members)</a>`);
    expect(deliveries.html).not.toContain(`scim-group:${groupId}`);
  });

  it('says a list goes on past its page instead of counting only the page', async () => {
    expect((await service.poll()).outcome).toBe('ok');
    for (let i = 0; i < 51; i++) await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: `http://127.0.0.1:9/hook-${i}` });
    await vendor.setIncidents([rawIncident({ id: 3 })]);
    await service.poll();

    const subscriptions = await admin.get('/admin/subscriptions');
    expect(subscriptions.html).toContain('<h2 id="subs-title">The first 50 subscriptions; more on the next page</h2>');
    const deliveries = await admin.get('/admin/deliveries');
    expect(deliveries.html).toContain('<h2 id="deliveries-title">The first 50 deliveries; more on the next page, newest first</h2>');
    const next = /href="(\/admin\/deliveries\?cursor=[^"]+)" rel="next"/.exec(deliveries.html)?.[1]?.replaceAll('&amp;', '&');
    expect((await admin.get(next!)).html).toContain('<h2 id="deliveries-title">1 delivery, continued, newest first</h2>');
  });

  it('lists every admin section under “Everything else”, the directory too', async () => {
    const overview = await admin.get('/admin');
    const start = overview.html.indexOf('id="overview-more-title"');
    const more = overview.html.slice(start, overview.html.indexOf('</section>', start));
    const nav = [...(/<nav aria-label="Admin">([\s\S]*?)<\/nav>/.exec(overview.html)?.[1] ?? '').matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(nav).toContain('/admin/directory');
    for (const href of nav.filter((h) => h !== '/admin')) expect(more, href).toContain(`<a href="${href}">`);
  });

  it('says mail is set up on the email form only when it is', async () => {
    const form = await admin.get('/admin/new-subscription?channel=email');
    expect(form.html).toContain('Mail is set up on this server');
    expect(form.html).not.toContain('Mail is not set up');
    const mailless = await startTestApp(vendor.url);
    try {
      const bare = await (await signInAdmin(mailless)).get('/admin/new-subscription?channel=email');
      expect(bare.html).toContain('Mail is not set up on this server: set SMTP_URL (or MAIL_API_TOKEN) and MAIL_FROM to send email.');
    } finally {
      await mailless.close();
    }
  });

  it('answers a misspelled group with the closest name and the groups the directory has, escaped', async () => {
    await control(directory, 'POST', '/groups', { displayName: '<b>Ops</b>', members: [] });
    const refused = await admin.post('/admin/new-subscription', { channel: 'email', email: '', group: 'Suport', timezone: 'UTC' });
    expect(refused.status).toBe(404);
    expect(refused.html).toContain(
      'The directory has no group with the id or display name &quot;Suport&quot;; did you mean &quot;Support&quot;?; its groups: &quot;Support&quot;, &quot;&lt;b&gt;Ops&lt;/b&gt;&quot;.',
    );
    expect(refused.html).not.toContain('<b>Ops</b>');
    // The same words from the API, which the form goes through.
    const api = await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Suport' });
    expect(api).toMatchObject({ status: 404, body: { error: 'group_not_found' } });
    expect(api.body.detail).toContain('did you mean "Support"?');
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toEqual([]);
  });
});
