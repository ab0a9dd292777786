/**
 * Subscriptions choose sources (both projects: a SQLite file on Node, D1 in workerd; real HTTP on
 * loopback to the simulated vendor, a simulated page, a webhook receiver and a mail catcher):
 * `filters.sources` is checked, stored and echoed; a source's events reach the subscriptions that
 * chose it, once each, signed; a subscription made before the page was added gets nothing of it;
 * the page's first read sends nothing.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputValues, signInAdmin } from '../helpers/admin-page-client.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('subscriptions that choose sources', () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let receiver: WebhookReceiver;
  let smtp: TestSmtp;
  let service: TestApp;
  let pageId: string;
  /** Made before the page was added, with no filters at all: the main feed's, as ever. */
  let before: { id: string; secret: string };

  const hook = (name: string) => `${receiver.url}?to=${name}`;
  const receivedBy = (name: string) => receiver.received.filter((r) => r.path.endsWith(`?to=${name}`));
  const advancePage = async () => expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
  const pollAndDeliver = async () => {
    const polled = await service.admin('POST', '/api/admin/poll');
    expect(polled.status).toBe(200);
    await service.deliverNow();
    return polled.body;
  };
  const waitForMail = async (count: number) => {
    const deadline = Date.now() + 10_000;
    while (smtp.received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const createHook = async (name: string, filters?: Record<string, unknown>) => {
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: hook(name), ...(filters ? { filters } : {}) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.subscription.id as string, secret: created.body.secret as string, subscription: created.body.subscription };
  };

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 41 })]);
    page = await startTestStatuspage({ name: 'GitHub' });
    receiver = await startWebhookReceiver();
    smtp = await startSmtp();
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'status@example.test' } });
    before = await createHook('before');
    const added = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url });
    expect(added.status).toBe(201);
    pageId = added.body.source.id;
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close(), receiver?.close(), smtp?.close()]);
  });

  it('refuses a source that is not watched, naming it, and keeps, echoes and documents filters.sources', async () => {
    const unknown = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: hook('nope'), filters: { sources: ['src_nope'] } });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'unknown_source']);
    expect(unknown.body.detail).toContain('"src_nope"');
    expect(unknown.body.detail).toContain(`${pageId} (GitHub)`);
    const unlisted = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: hook('nope'), filters: { services: [`${pageId}:API`] } });
    expect([unlisted.status, unlisted.body.error]).toEqual([400, 'invalid_request']);
    expect(unlisted.body.detail).toContain(`names source ${pageId}, which filters.sources does not list`);
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { url: string }[];
    expect(listed.map((s) => s.url)).toEqual([hook('before')]);

    const chosen = await createHook('echo', { sources: [pageId, 'main'], services: [`${pageId}:API`, 'Files'] });
    expect(chosen.subscription.filters).toEqual({ sources: [pageId, 'main'], services: [`${pageId}:API`, 'Files'], monitor: true });
    const read = await service.admin('GET', `/api/subscriptions/${chosen.id}`);
    expect(read.body.subscription.filters.sources).toEqual([pageId, 'main']);
    // A change that drops the main feed keeps the page's service and refuses the main feed's one.
    const patched = await service.admin('PATCH', `/api/subscriptions/${chosen.id}`, { filters: { sources: [pageId], services: ['Files'] } });
    expect([patched.status, patched.body.error]).toEqual([400, 'invalid_request']);
    expect((await service.admin('DELETE', `/api/subscriptions/${chosen.id}`)).status).toBe(200);

    const openapi = (await service.get('/openapi.json')).body;
    const body = openapi.paths['/api/subscriptions'].post.requestBody.content['application/json'].schema;
    const filters = JSON.stringify(body).match(/"sources":\{[^}]*\}/)?.[0] ?? 'no filters.sources in the body schema';
    expect(filters).toContain('GET /api/sources');
  });

  it("sends nothing of the page's first read (its history), to anyone", async () => {
    const polled = await pollAndDeliver();
    const result = polled.sources.find((s: { source: string }) => s.source === pageId);
    expect(result.events.map((e: { backfill: boolean }) => e.backfill)).toEqual([true]);
    expect(receiver.received).toEqual([]);
  });

  it('offers the page and its services on the admin form, and saves what is ticked', async () => {
    const admin = await signInAdmin(service);
    const form = await admin.get('/admin/new-subscription');
    expect(form.html).toContain(`value="${pageId}"`);
    expect(form.html).toContain('GitHub');
    expect(form.html).toContain(`value="${pageId}:API"`);
    const created = await admin.post('/admin/new-subscription', { channel: 'webhook', url: hook('form'), source: [pageId], service: [`${pageId}:Website`] });
    expect(created.status).toBe(201);
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string; url: string; filters: unknown }[];
    const saved = listed.find((s) => s.url === hook('form'))!;
    expect(saved.filters).toMatchObject({ sources: [pageId], services: [`${pageId}:Website`] });
    // The list says which sources each subscription receives: the main feed alone when none are chosen.
    const list = await admin.get('/admin/subscriptions');
    expect(list.html).toContain(`sources: ${pageId}; services: ${pageId}:Website`);
    expect(list.html).toContain('>sources: main</span>');
    const edit = await admin.get(`/admin/subscriptions/${saved.id}`);
    expect(inputValues(edit.html, 'source')).toEqual([pageId]);
    expect(inputValues(edit.html, 'service')).toEqual([`${pageId}:Website`]);
    expect((await service.admin('DELETE', `/api/subscriptions/${saved.id}`)).status).toBe(200);
  });

  it("delivers each of the page's events once, signed, to the subscriptions that chose it, and nothing to one made before", async () => {
    const chosen = await createHook('chosen', { sources: [pageId] });
    const narrowed = await createHook('other-service', { sources: [pageId], services: [`${pageId}:Database`] });
    const mail = await service.admin('POST', '/api/subscriptions', {
      channel: 'email',
      email: 'ops@example.test',
      filters: { sources: ['main', pageId], services: [`${pageId}:API`] },
    });
    expect(mail.status).toBe(201);

    // The page opens an incident on its API, whose component goes partially out: two events.
    await advancePage();
    const first = await pollAndDeliver();
    const created = first.sources.find((s: { source: string }) => s.source === pageId).events;
    expect(created.map((e: { type: string; backfill: boolean }) => [e.type, e.backfill])).toEqual([
      ['incident.created', false],
      ['component.status_changed', false],
    ]);
    await receiver.waitFor(2);
    // The same page again, read twice: nothing new, nothing sent twice.
    await pollAndDeliver();
    await pollAndDeliver();
    expect(receiver.received).toHaveLength(2);
    const verified = receivedBy('chosen').map((r) => new Webhook(chosen.secret).verify(r.body, r.headers as Record<string, string>));
    expect(verified).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'incident.created',
          source: { id: pageId, name: 'GitHub' },
          data: expect.objectContaining({ incident: expect.objectContaining({ id: `${pageId}:swinc0000001`, title: 'Elevated API error rates' }) }),
        }),
        expect.objectContaining({
          type: 'component.status_changed',
          source: { id: pageId, name: 'GitHub' },
          data: {
            source: { id: pageId, name: 'GitHub' },
            component: { id: 'swcmpapi0001', name: 'API', group: 'Core' },
            from: 'operational',
            to: 'partial_outage',
            from_state: 'Operational',
            to_state: 'Outage',
          },
        }),
      ]),
    );
    // Each mail names the page it is about; the component's is a mail of its own.
    await waitForMail(2);
    expect(smtp.received.map((m) => [m.to && 'text' in m.to ? m.to.text : '', m.subject]).sort()).toEqual([
      ['ops@example.test', '[Outage] GitHub · API: Elevated API error rates'],
      ['ops@example.test', '[Outage] GitHub · Core / API: partial outage'],
    ]);

    // The next update: one more each, still none to the subscription made before the page.
    await advancePage();
    await pollAndDeliver();
    await receiver.waitFor(3);
    await pollAndDeliver();
    expect(receiver.received.map((r) => r.path.split('?to=')[1])).toEqual(['chosen', 'chosen', 'chosen']);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect([receivedBy('before'), receivedBy('other-service')]).toEqual([[], []]);
    await waitForMail(3);
    expect(smtp.received.map((m) => m.subject).at(-1)).toBe('[Update] GitHub · API: Elevated API error rates');
    expect(before.id).not.toBe(narrowed.id);
  });

  it("keeps the sources and the page's services an admin chose when the subscriber changes the rest on the manage page", async () => {
    const mail = smtp.received.at(-1)!;
    const token = /\/manage\?token=([\w-]+)/.exec(mail.text ?? '')?.[1];
    expect(token, mail.text).toBeDefined();
    const form = await service.fetch(`${service.url}/manage?token=${token}`);
    const html = await form.text();
    expect(form.status).toBe(200);
    expect(html).not.toContain(`${pageId}:API`);
    const body = new URLSearchParams({ token: token!, service: 'Files', timezone: 'UTC' });
    const saved = await service.fetch(`${service.url}/manage`, { method: 'POST', body, headers: { origin: service.url } });
    expect(saved.status).toBe(200);
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { channel: string; filters: unknown }[];
    expect(listed.find((s) => s.channel === 'email')?.filters).toMatchObject({ sources: ['main', pageId], services: ['Files', `${pageId}:API`] });
  });
});
