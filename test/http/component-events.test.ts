/**
 * A watched page's component that flips with no incident (the demo's Paystream story) is an event
 * of its own, delivered (both projects: a SQLite file on Node, D1 in workerd; real HTTP on
 * loopback to the simulated vendor, the simulated page and a webhook receiver): one signed webhook
 * per flip to each subscription that chose the page and the component, none on the page's first
 * read, none twice across polls, none to a subscription whose filters leave it out.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('a component that changes state without an incident', () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let receiver: WebhookReceiver;
  let service: TestApp;
  let pageId: string;
  const secrets = new Map<string, string>();

  const advancePage = async () => expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
  const hook = (name: string) => `${receiver.url}?to=${name}`;
  const receivedBy = (name: string) => receiver.received.filter((r) => r.path.endsWith(`?to=${name}`));
  const pollAndDeliver = async () => {
    const polled = await service.admin('POST', '/api/admin/poll');
    expect(polled.status).toBe(200);
    await service.deliverNow();
    return polled.body.sources.find((s: { source: string }) => s.source === pageId).events as { type: string; backfill: boolean }[];
  };
  const createHook = async (name: string, filters?: Record<string, unknown>) => {
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: hook(name), ...(filters ? { filters } : {}) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    secrets.set(name, created.body.secret as string);
  };
  const verified = (name: string) =>
    receivedBy(name).map((r) => new Webhook(secrets.get(name)!).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>);

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 41 })]);
    page = await startTestStatuspage({ demo: 'Paystream' });
    receiver = await startWebhookReceiver();
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const added = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url });
    expect(added.status).toBe(201);
    pageId = added.body.source.id;
    // What each subscription chose: the page; the page's Payouts; another of its components; the
    // page but only incidents' creations (a list made before component events); the main feed.
    await createHook('page', { sources: [pageId] });
    await createHook('payouts', { sources: [pageId], services: [`${pageId}:Payouts`] });
    await createHook('cards', { sources: [pageId], services: [`${pageId}:Card payments`] });
    await createHook('created-only', { sources: [pageId], events: ['incident.created'] });
    await createHook('main');
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close(), receiver?.close()]);
  });

  it("sends nothing of the page's first read", async () => {
    const events = await pollAndDeliver();
    expect(events.map((e) => [e.type, e.backfill])).toEqual([['incident.created', true]]);
    expect(receiver.received).toEqual([]);
  });

  it('sends one signed webhook per flip to each subscription that chose the page and the component, never twice', async () => {
    const flip = (from: string, to: string, fromState: string, toState: string) => ({
      type: 'component.status_changed',
      source: { id: pageId, name: 'Paystream' },
      data: {
        source: { id: pageId, name: 'Paystream' },
        component: { id: 'pscmppay0001', name: 'Payouts' },
        from,
        to,
        from_state: fromState,
        to_state: toState,
      },
    });
    // Payouts degrades with no incident.
    await advancePage();
    expect((await pollAndDeliver()).map((e) => e.type)).toEqual(['component.status_changed']);
    await receiver.waitFor(2);
    // Read again and again: nothing new, nothing sent twice.
    expect(await pollAndDeliver()).toEqual([]);
    expect(await pollAndDeliver()).toEqual([]);
    expect(receiver.received).toHaveLength(2);
    // And back.
    await advancePage();
    expect((await pollAndDeliver()).map((e) => e.type)).toEqual(['component.status_changed']);
    await receiver.waitFor(4);
    await pollAndDeliver();

    const down = flip('operational', 'degraded_performance', 'Operational', 'Degraded');
    const up = flip('degraded_performance', 'operational', 'Degraded', 'Operational');
    for (const name of ['page', 'payouts']) expect(verified(name)).toEqual([expect.objectContaining(down), expect.objectContaining(up)]);
    expect(['cards', 'created-only', 'main'].map((name) => receivedBy(name).length)).toEqual([0, 0, 0]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(4);

    // The log lists both under the page, with no incident.
    const logged = (await service.get(`/api/events?source=${pageId}&type=component.status_changed`)).body.events;
    expect(logged.map((e: { incident_id: string | null; source: string; data: { to: string } }) => [e.incident_id, e.source, e.data.to])).toEqual([
      [null, pageId, 'degraded_performance'],
      [null, pageId, 'operational'],
    ]);
  });
});
