/**
 * PagerDuty and Opsgenie deliveries in both runtimes (Node with SQLite; workerd with D1 in the
 * workers project): an incident's creation and resolution reach the endpoints the settings name,
 * a refused routing key pauses the subscription. A real receiver on loopback stands where
 * PAGERDUTY_EVENTS_URL and OPSGENIE_API_URL point, answering as each tool documents.
 */
import { describe, expect, it } from 'vitest';
import { ACCEPTED, API_KEY, ROUTING_KEY } from '../fixtures/tool-answers.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('on-call deliveries', () => {
  const t = useAppOnVendor({
    side: startWebhookReceiver,
    env: (tool) => ({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      PUBLIC_URL: 'https://status.example.test',
      PAGERDUTY_EVENTS_URL: `${tool.url}/v2/enqueue`,
      OPSGENIE_API_URL: tool.url,
    }),
    firstPoll: true,
  });

  const active = rawIncident({ id: 1580, title: 'Some files fail to upload', services: ['Files'] });
  const resolved = { ...active, status: 'resolved', date_updated: '2026-10-01T07:10:00-07:00' };

  it('PagerDuty: a trigger and then a resolve under one dedup_key', async () => {
    expect((await t.service.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY })).status).toBe(201);
    for (const state of [active, resolved]) {
      t.side.answerNext(ACCEPTED.pagerduty);
      await t.vendor.setIncidents([state]);
      await t.service.poll();
      await t.service.deliverNow();
    }
    const events = (await t.side.waitFor(2)).map((r) => ({ path: r.path, ...JSON.parse(r.body) }));
    expect(events.map((e) => [e.path, e.event_action, e.dedup_key])).toEqual([
      ['/hook/v2/enqueue', 'trigger', 'statuswatch/status.example.test/incident/1580'],
      ['/hook/v2/enqueue', 'resolve', 'statuswatch/status.example.test/incident/1580'],
    ]);
    expect(events[0].payload).toMatchObject({ severity: 'error', summary: '[New incident] Files: Some files fail to upload' });
  });

  it('Opsgenie: the alert created and closed by its alias, with the GenieKey', async () => {
    expect((await t.service.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY, region: 'eu' })).status).toBe(201);
    for (const state of [active, resolved]) {
      t.side.answerNext(ACCEPTED.opsgenie);
      await t.vendor.setIncidents([state]);
      await t.service.poll();
      await t.service.deliverNow();
    }
    const calls = await t.side.waitFor(2);
    expect(calls.map((c) => c.path)).toEqual([
      '/hook/v2/alerts',
      `/hook/v2/alerts/${encodeURIComponent('statuswatch/status.example.test/incident/1580')}/close?identifierType=alias`,
    ]);
    expect(calls.every((c) => c.headers.authorization === `GenieKey ${API_KEY}`)).toBe(true);
  });

  it('pauses a subscription whose routing key PagerDuty refuses', async () => {
    const { id } = (await t.service.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: 'deleted-integration' })).body.subscription;
    t.side.answerNext({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: '{"status":"invalid event","message":"Event object is invalid","errors":["Invalid routing key"]}',
    });
    await t.vendor.setIncidents([active]);
    await t.service.poll();
    await t.service.deliverNow();
    expect((await t.service.admin('GET', `/api/subscriptions/${id}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'PagerDuty refused the key: Event object is invalid: Invalid routing key',
    });
  });
});
