/**
 * The admin form's PagerDuty and Opsgenie kinds through the service's app (a real SQLite file; D1
 * in the workers project): the key typed once is sealed, never shown again on any page, kept by an
 * edit that leaves it empty, and the form's test send reaches the tool's endpoint (a real receiver
 * on loopback standing where PAGERDUTY_EVENTS_URL points).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminPageClient, inputValues, signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const API_KEY = '0b5c6a3e-1f2d-4c8b-9a7e-5d4c3b2a1f00';

describe('admin on-call forms', () => {
  let vendor: TestVendor;
  let tools: WebhookReceiver;
  let service: TestApp;
  let admin: AdminPageClient;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    tools = await startWebhookReceiver();
    service = await startTestApp(vendor.url, {
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', PAGERDUTY_EVENTS_URL: tools.url, OPSGENIE_API_URL: tools.url },
    });
    admin = await signInAdmin(service);
  });
  afterEach(async () => {
    await service.close();
    await tools.close();
  });

  const apiList = async () => (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string; channel: string }[];

  it('offers PagerDuty and Opsgenie, each with its key field empty and a password field', async () => {
    const page = await admin.get('/admin/new-subscription?channel=pagerduty');
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/admin/new-subscription?channel=opsgenie"');
    expect(page.html).toMatch(/<input type="password" id="as-routing-key" name="routing_key" value=""/);
    const og = await admin.get('/admin/new-subscription?channel=opsgenie');
    expect(og.html).toMatch(/<select id="as-region" name="region">/);
  });

  it('creates a PagerDuty subscription whose key no page shows, keeps it through an edit, and tests it', async () => {
    const created = await admin.post('/admin/new-subscription', { channel: 'pagerduty', routing_key: ROUTING_KEY, timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.html).not.toContain(ROUTING_KEY);
    const [listed] = await apiList();
    expect(listed!.channel).toBe('pagerduty');
    const page = await admin.get(`/admin/subscriptions/${listed!.id}`);
    expect(page.html).not.toContain(ROUTING_KEY);
    expect(inputValues(page.html, 'routing_key')).toEqual(['']);
    expect((await admin.get('/admin/subscriptions')).html).not.toContain(ROUTING_KEY);

    const saved = await admin.post(`/admin/subscriptions/${listed!.id}`, { routing_key: '', service: 'Files', timezone: 'UTC' });
    expect(saved.status).toBe(303);
    const tested = await admin.post(`/admin/subscriptions/${listed!.id}/test`, {});
    expect(tested.status).toBeLessThan(400);
    // One event per sample event type, each carrying the key kept through the edit.
    const events = (await tools.waitFor(7)).map((r) => JSON.parse(r.body));
    expect(events.every((e) => e.routing_key === ROUTING_KEY && /\/test$/.test(e.dedup_key))).toBe(true);
    expect(events.at(-1).event_action).toBe('resolve');
  });

  it('creates an Opsgenie subscription in the EU region and shows the region, not the key', async () => {
    const created = await admin.post('/admin/new-subscription', { channel: 'opsgenie', api_key: API_KEY, region: 'eu', timezone: 'UTC' });
    expect(created.status).toBe(201);
    const [listed] = await apiList();
    expect((await service.admin('GET', `/api/subscriptions/${listed!.id}`)).body.subscription).toMatchObject({ channel: 'opsgenie', region: 'eu' });
    const page = await admin.get(`/admin/subscriptions/${listed!.id}`);
    expect(page.html).not.toContain(API_KEY);
    expect(page.html).toMatch(/<option value="eu" selected/);
    // The list names the tool and the region where other kinds name their URL or address.
    expect((await admin.get('/admin/subscriptions')).html).toContain('Opsgenie EU');
  });
});
