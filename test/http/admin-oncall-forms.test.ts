/**
 * The admin form's PagerDuty and Opsgenie kinds through the service's app (a real SQLite file; D1
 * in the workers project): the key typed once is sealed, never shown again on any page, kept by an
 * edit that leaves it empty, and the form's test send reaches the tool's endpoint (a real receiver
 * on loopback standing where PAGERDUTY_EVENTS_URL points).
 */
import { describe, expect, it } from 'vitest';
import { API_KEY, ROUTING_KEY } from '../fixtures/tool-answers.ts';
import { inputValues } from '../helpers/admin-page-client.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('admin on-call forms', () => {
  const t = useAppOnVendor({
    side: startWebhookReceiver,
    env: (tools) => ({ WEBHOOK_ALLOW_PRIVATE: 'true', PAGERDUTY_EVENTS_URL: tools.url, OPSGENIE_API_URL: tools.url }),
    signIn: true,
  });

  const apiList = async () => (await t.service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string; channel: string }[];

  it('offers PagerDuty and Opsgenie, each with its key field empty and a password field', async () => {
    const page = await t.admin.get('/admin/new-subscription?channel=pagerduty');
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/admin/new-subscription?channel=opsgenie"');
    expect(page.html).toMatch(/<input type="password" id="as-routing-key" name="routing_key" value=""/);
    const og = await t.admin.get('/admin/new-subscription?channel=opsgenie');
    expect(og.html).toMatch(/<select id="as-region" name="region">/);
  });

  it('creates a PagerDuty subscription whose key no page shows, keeps it through an edit, and tests it', async () => {
    const created = await t.admin.post('/admin/new-subscription', { channel: 'pagerduty', routing_key: ROUTING_KEY, timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.html).not.toContain(ROUTING_KEY);
    const [listed] = await apiList();
    expect(listed!.channel).toBe('pagerduty');
    const page = await t.admin.get(`/admin/subscriptions/${listed!.id}`);
    expect(page.html).not.toContain(ROUTING_KEY);
    expect(inputValues(page.html, 'routing_key')).toEqual(['']);
    expect((await t.admin.get('/admin/subscriptions')).html).not.toContain(ROUTING_KEY);

    const saved = await t.admin.post(`/admin/subscriptions/${listed!.id}`, { routing_key: '', service: 'Files', timezone: 'UTC' });
    expect(saved.status).toBe(303);
    const tested = await t.admin.post(`/admin/subscriptions/${listed!.id}/test`, {});
    expect(tested.status).toBeLessThan(400);
    // One event per sample event type, each carrying the key kept through the edit.
    const events = (await t.side.waitFor(7)).map((r) => JSON.parse(r.body));
    expect(events.every((e) => e.routing_key === ROUTING_KEY && /\/test$/.test(e.dedup_key))).toBe(true);
    expect(events.at(-1).event_action).toBe('resolve');
  });

  it('creates an Opsgenie subscription in the EU region and shows the region, not the key', async () => {
    const created = await t.admin.post('/admin/new-subscription', { channel: 'opsgenie', api_key: API_KEY, region: 'eu', timezone: 'UTC' });
    expect(created.status).toBe(201);
    const [listed] = await apiList();
    expect((await t.service.admin('GET', `/api/subscriptions/${listed!.id}`)).body.subscription).toMatchObject({ channel: 'opsgenie', region: 'eu' });
    const page = await t.admin.get(`/admin/subscriptions/${listed!.id}`);
    expect(page.html).not.toContain(API_KEY);
    expect(page.html).toMatch(/<option value="eu" selected/);
    // The list names the tool and the region where other kinds name their URL or address.
    expect((await t.admin.get('/admin/subscriptions')).html).toContain('Opsgenie EU');
  });
});
