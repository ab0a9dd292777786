/**
 * PagerDuty and Opsgenie deliveries in both runtimes (Node with SQLite; workerd with D1 in the
 * workers project): an incident's creation and resolution reach the endpoints the settings name,
 * a refused routing key pauses the subscription. A real receiver on loopback stands where
 * PAGERDUTY_EVENTS_URL and OPSGENIE_API_URL point, answering as each tool documents.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const API_KEY = '0b5c6a3e-1f2d-4c8b-9a7e-5d4c3b2a1f00';
const PD_ACCEPTED = { status: 202, headers: { 'content-type': 'application/json' }, body: '{"status":"success","message":"Event processed","dedup_key":"k"}' };
const OG_ACCEPTED = { status: 202, headers: { 'content-type': 'application/json' }, body: '{"result":"Request will be processed","took":0.2,"requestId":"r"}' };

describe('on-call deliveries', () => {
  let vendor: TestVendor;
  let tool: WebhookReceiver;
  let service: TestApp;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    await vendor.setIncidents([]);
    tool = await startWebhookReceiver();
    service = await startTestApp(vendor.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        PUBLIC_URL: 'https://status.example.test',
        PAGERDUTY_EVENTS_URL: `${tool.url}/v2/enqueue`,
        OPSGENIE_API_URL: tool.url,
      },
    });
    expect((await service.poll()).outcome).toBe('ok');
  });
  afterEach(async () => {
    await service.close();
    await tool.close();
  });

  const active = rawIncident({ id: 1580, title: 'Some files fail to upload', services: ['Files'] });
  const resolved = { ...active, status: 'resolved', date_updated: '2026-10-01T07:10:00-07:00' };

  it('PagerDuty: a trigger and then a resolve under one dedup_key', async () => {
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY })).status).toBe(201);
    for (const state of [active, resolved]) {
      tool.answerNext(PD_ACCEPTED);
      await vendor.setIncidents([state]);
      await service.poll();
      await service.deliverNow();
    }
    const events = (await tool.waitFor(2)).map((r) => ({ path: r.path, ...JSON.parse(r.body) }));
    expect(events.map((e) => [e.path, e.event_action, e.dedup_key])).toEqual([
      ['/hook/v2/enqueue', 'trigger', 'statuswatch/status.example.test/incident/1580'],
      ['/hook/v2/enqueue', 'resolve', 'statuswatch/status.example.test/incident/1580'],
    ]);
    expect(events[0].payload).toMatchObject({ severity: 'error', summary: '[New incident] Files: Some files fail to upload' });
  });

  it('Opsgenie: the alert created and closed by its alias, with the GenieKey', async () => {
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY, region: 'eu' })).status).toBe(201);
    for (const state of [active, resolved]) {
      tool.answerNext(OG_ACCEPTED);
      await vendor.setIncidents([state]);
      await service.poll();
      await service.deliverNow();
    }
    const calls = await tool.waitFor(2);
    expect(calls.map((c) => c.path)).toEqual([
      '/hook/v2/alerts',
      `/hook/v2/alerts/${encodeURIComponent('statuswatch/status.example.test/incident/1580')}/close?identifierType=alias`,
    ]);
    expect(calls.every((c) => c.headers.authorization === `GenieKey ${API_KEY}`)).toBe(true);
  });

  it('pauses a subscription whose routing key PagerDuty refuses', async () => {
    const { id } = (await service.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: 'deleted-integration' })).body.subscription;
    tool.answerNext({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: '{"status":"invalid event","message":"Event object is invalid","errors":["Invalid routing key"]}',
    });
    await vendor.setIncidents([active]);
    await service.poll();
    await service.deliverNow();
    expect((await service.admin('GET', `/api/subscriptions/${id}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'PagerDuty refused the key: Event object is invalid: Invalid routing key',
    });
  });
});
