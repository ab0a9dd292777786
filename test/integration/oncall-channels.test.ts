/**
 * PagerDuty and Opsgenie end to end: the simulated vendor drives one incident from creation
 * through notes, an edit and resolution; the real service (SQLite, outbox, deliverer) sends to the
 * simulated tools over loopback, which answer as the tools document and keep the alerts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningOnCallReceiver, startOnCallReceiver } from '../../src/sim/oncall/receiver.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const API_KEY = '0b5c6a3e-1f2d-4c8b-9a7e-5d4c3b2a1f00';
const PUBLIC_URL = 'https://status.example.test';

/** One Files incident, moved one step at a time as the vendor would publish it. */
function story() {
  const created = rawIncident({
    id: 1580,
    title: 'Some files fail to upload',
    type: 'outage',
    services: ['Files'],
    notes: [{ body: '<p>We are looking into it.</p>', date_created: '2026-10-01T05:39:35-07:00' }],
  });
  const noted = {
    ...created,
    date_updated: '2026-10-01T06:00:00-07:00',
    notes: [...created.notes, { body: '<p>A fix is being deployed.</p>', date_created: '2026-10-01T06:00:00-07:00' }],
  };
  const edited = { ...noted, title: 'Some files fail to upload or download', date_updated: '2026-10-01T06:10:00-07:00' };
  const resolved = {
    ...edited,
    status: 'resolved',
    date_updated: '2026-10-01T07:10:00-07:00',
    notes: [...edited.notes, { body: '<p>Uploads work again.</p>', date_created: '2026-10-01T07:10:00-07:00' }],
  };
  // A note edited after the end: told to Opsgenie on the closed alert, never a second resolve.
  const amended = {
    ...resolved,
    notes: [...edited.notes, { body: '<p>Uploads work again. Postmortem to follow.</p>', date_created: '2026-10-01T07:10:00-07:00' }],
  };
  return [created, noted, edited, resolved, amended];
}

describe('on-call channels', () => {
  let vendor: TestVendor;
  let tools: RunningOnCallReceiver;
  let app: TestApp;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    offsetMs = 0;
    await vendor.setIncidents([]);
    tools = await startOnCallReceiver();
    tools.addPagerDutyKey(ROUTING_KEY);
    tools.addOpsgenieKey(API_KEY);
    app = await startTestApp(vendor.url, {
      clock,
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL, PAGERDUTY_EVENTS_URL: tools.pagerDutyUrl, OPSGENIE_API_URL: tools.opsgenieUrl },
    });
    expect((await app.poll()).outcome).toBe('ok'); // seeds the archive: nothing is news yet
  });
  afterEach(async () => {
    await app.close();
    await tools.close();
  });

  async function subscribe(body: object): Promise<string> {
    const res = await app.admin('POST', '/api/subscriptions', body);
    expect(res.status).toBe(201);
    return res.body.subscription.id;
  }

  async function publishEachStep() {
    for (const step of story()) {
      await vendor.setIncidents([step]);
      expect((await app.poll()).outcome).toBe('ok');
      await app.deliverNow();
    }
  }

  it('PagerDuty: triggers under one dedup_key for creation, a note and an edit, then exactly one resolve', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    await publishEachStep();
    const events = tools
      .calls()
      .filter((c) => c.tool === 'pagerduty')
      .map((c) => JSON.parse(c.body));
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'trigger', 'trigger', 'resolve']);
    expect(new Set(events.map((e) => e.dedup_key))).toEqual(new Set(['statuswatch/status.example.test/incident/1580']));
    expect(events[0].payload).toMatchObject({ severity: 'critical', source: 'slack-status.com', custom_details: { services: 'Files', status: 'Active' } });
    expect(events[0].links.map((l: { href: string }) => l.href)).toEqual([`${PUBLIC_URL}/incidents/1580`, 'https://slack-status.com/2026-10/6c28dfb7b670dc02']);
    expect(events[1].payload.custom_details.latest_note).toBe('A fix is being deployed.');
    expect(tools.pagerDutyAlerts()).toMatchObject([
      { dedupKey: 'statuswatch/status.example.test/incident/1580', status: 'resolved', triggers: 3, resolves: 1 },
    ]);
  });

  it('Opsgenie: one alias, created once, a note per later change, closed once', async () => {
    await subscribe({ channel: 'opsgenie', api_key: API_KEY, region: 'eu' });
    await publishEachStep();
    const alias = 'statuswatch/status.example.test/incident/1580';
    expect(tools.opsgenieAlerts()).toMatchObject([{ alias, status: 'closed', openedTimes: 1, closes: 1 }]);
    const [alert] = tools.opsgenieAlerts();
    expect(alert!.notes).toHaveLength(4);
    expect(alert!.notes[2]).toContain('Uploads work again.');
    expect(alert!.notes[3]).toContain('Postmortem to follow.');
    const paths = tools.calls().map((c) => c.path);
    const byAlias = `/opsgenie/v2/alerts/${encodeURIComponent(alias)}`;
    expect(paths).toEqual([
      '/opsgenie/v2/alerts',
      '/opsgenie/v2/alerts',
      `${byAlias}/notes?identifierType=alias`,
      '/opsgenie/v2/alerts',
      `${byAlias}/notes?identifierType=alias`,
      `${byAlias}/close?identifierType=alias`,
      `${byAlias}/notes?identifierType=alias`,
    ]);
    expect(JSON.parse(tools.calls()[0]!.body)).toMatchObject({ alias, priority: 'P1', message: '[Outage] Files: Some files fail to upload' });
  });

  it('keeps the key sealed: not in the answer, the list, the logs or the database file', async () => {
    const res = await app.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain(ROUTING_KEY);
    const og = await app.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY });
    expect(og.body.subscription).toMatchObject({ channel: 'opsgenie', region: 'us' });
    expect(JSON.stringify(og.body)).not.toContain(API_KEY);
    const list = await app.admin('GET', '/api/subscriptions');
    expect(JSON.stringify(list.body)).not.toContain(ROUTING_KEY);
    await publishEachStep();
    expect(app.logs.join('\n')).not.toContain(ROUTING_KEY);
    expect(app.logs.join('\n')).not.toContain(API_KEY);
    const database = readFileSync(join(app.dir, 'archive.db'));
    expect(database.includes(ROUTING_KEY)).toBe(false);
    expect(database.includes(API_KEY)).toBe(false);
  });

  it('retries a 429 after the Retry-After the tool asked for, on the same alert', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    tools.failNext('pagerduty', { status: 429, retryAfterSeconds: 120 });
    await vendor.setIncidents([story()[0]!]);
    await app.poll();
    await app.deliverNow();
    const { body } = await app.admin('GET', '/api/deliveries');
    const [delivery] = body.deliveries;
    expect(delivery.state).toBe('pending');
    expect(delivery.last_error).toContain('PagerDuty HTTP 429');
    expect(Date.parse(delivery.next_attempt_at) - clock.now()).toBeGreaterThanOrEqual(115_000);
    offsetMs += 121_000;
    await app.deliverNow();
    expect(tools.pagerDutyAlerts()).toMatchObject([{ status: 'triggered', triggers: 1 }]);
    expect((await app.admin('GET', `/api/deliveries/${delivery.id}`)).body.delivery.state).toBe('done');
  });

  it('never reopens an alert with a trigger retried after the incident ended', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    await subscribe({ channel: 'opsgenie', api_key: API_KEY });
    const [created, , , resolved] = story();
    // The creation's sends are throttled; before they are retried, the vendor resolves the incident.
    tools.failNext('pagerduty', { status: 429, retryAfterSeconds: 120 });
    tools.failNext('opsgenie', { status: 429, retryAfterSeconds: 120 });
    await vendor.setIncidents([created!]);
    await app.poll();
    await app.deliverNow();
    await vendor.setIncidents([resolved!]);
    await app.poll();
    await app.deliverNow();
    offsetMs += 121_000;
    await app.deliverNow();
    const { body } = await app.admin('GET', '/api/deliveries');
    expect(body.deliveries.every((d: { state: string }) => d.state === 'done')).toBe(true);
    // Nobody is paged for an incident that is over: no trigger, no open alert.
    expect(tools.calls().filter((c) => c.tool === 'pagerduty' && JSON.parse(c.body).event_action === 'trigger' && c.status === 202)).toEqual([]);
    expect(tools.pagerDutyAlerts().filter((a) => a.status === 'triggered')).toEqual([]);
    expect(tools.opsgenieAlerts().filter((a) => a.status === 'open')).toEqual([]);
  });

  it("pauses a PagerDuty subscription whose routing key is refused, with PagerDuty's own words", async () => {
    const id = await subscribe({ channel: 'pagerduty', routing_key: 'not-a-key-pagerduty-knows' });
    await vendor.setIncidents([story()[0]!]);
    await app.poll();
    await app.deliverNow();
    const { body } = await app.admin('GET', `/api/subscriptions/${id}`);
    expect(body.subscription.status).toBe('paused');
    expect(body.subscription.paused_reason).toBe('PagerDuty refused the key: Event object is invalid: Invalid routing key');
  });

  it('pauses an Opsgenie subscription whose API key is refused (401 and 422), with the reason Opsgenie gave', async () => {
    const unknown = await subscribe({ channel: 'opsgenie', api_key: '11111111-2222-4333-8444-555555555555' });
    const misshapen = await subscribe({ channel: 'opsgenie', api_key: 'short' });
    await vendor.setIncidents([story()[0]!]);
    await app.poll();
    await app.deliverNow();
    expect((await app.admin('GET', `/api/subscriptions/${unknown}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'Opsgenie refused the key: Could not authenticate',
    });
    expect((await app.admin('GET', `/api/subscriptions/${misshapen}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'Opsgenie refused the key: Key format is not valid!',
    });
  });

  it('sends a test of every event type to one test alert, closed at the end', async () => {
    const pd = await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    const og = await subscribe({ channel: 'opsgenie', api_key: API_KEY });
    for (const id of [pd, og]) {
      const res = await app.admin('POST', `/api/subscriptions/${id}/test`);
      expect(res.body.ok).toBe(true);
    }
    expect(tools.pagerDutyAlerts()).toMatchObject([{ dedupKey: 'statuswatch/status.example.test/test', status: 'resolved' }]);
    expect(tools.opsgenieAlerts()).toMatchObject([{ alias: 'statuswatch/status.example.test/test', status: 'closed' }]);
    const first = JSON.parse(tools.calls()[0]!.body);
    expect(first.payload).toMatchObject({ severity: 'info' });
    expect(first.payload.summary).toMatch(/^\[Test\] /);
  });

  it('changes filters without the key, and takes a new key sealed', async () => {
    const id = await subscribe({ channel: 'pagerduty', routing_key: 'old-key-of-a-deleted-integration' });
    const filters = await app.admin('PATCH', `/api/subscriptions/${id}`, { filters: { services: ['Files'] } });
    expect(filters.status).toBe(200);
    const rekeyed = await app.admin('PATCH', `/api/subscriptions/${id}`, { routing_key: ROUTING_KEY });
    expect(rekeyed.status).toBe(200);
    expect(JSON.stringify(rekeyed.body)).not.toContain(ROUTING_KEY);
    expect((await app.admin('PATCH', `/api/subscriptions/${id}`, { url: 'https://example.test/' })).status).toBe(400);
    await vendor.setIncidents([story()[0]!]);
    await app.poll();
    await app.deliverNow();
    expect(tools.pagerDutyAlerts()).toMatchObject([{ status: 'triggered' }]);
  });

  it('sends through the SSRF guard: a loopback PAGERDUTY_EVENTS_URL is refused without WEBHOOK_ALLOW_PRIVATE', async () => {
    const guarded = await startTestApp(vendor.url, { clock, env: { PUBLIC_URL, PAGERDUTY_EVENTS_URL: tools.pagerDutyUrl } });
    try {
      expect((await guarded.poll()).outcome).toBe('ok');
      expect((await guarded.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY })).status).toBe(201);
      await vendor.setIncidents([story()[0]!]);
      await guarded.poll();
      await guarded.deliverNow();
      const [delivery] = (await guarded.admin('GET', '/api/deliveries')).body.deliveries;
      expect(delivery.state).toBe('dead');
      expect(delivery.last_error).toMatch(/^target refused: /);
      expect(tools.calls()).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('refuses a subscription without its key, or with an unknown region, saying what is wrong', async () => {
    const noKey = await app.admin('POST', '/api/subscriptions', { channel: 'pagerduty' });
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(noKey.body)).toContain('a pagerduty subscription needs routing_key');
    const region = await app.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY, region: 'apac' });
    expect(region.status).toBe(400);
    expect(JSON.stringify(region.body)).toContain('region must be one of us, eu');
  });
});
