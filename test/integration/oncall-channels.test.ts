/**
 * PagerDuty and Opsgenie end to end: the simulated vendor drives one incident from creation
 * through notes, an edit and resolution; the real service (SQLite, outbox, deliverer) sends to the
 * simulated tools over loopback, which answer as the tools document and keep the alerts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startOnCallReceiver } from '../../src/sim/oncall/receiver.ts';
import { API_KEY, ROUTING_KEY } from '../fixtures/tool-answers.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { signInAdmin } from '../helpers/admin-page-client.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startTestApp } from '../helpers/app-service.ts';

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
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  beforeEach(() => {
    offsetMs = 0;
  });
  const t = useAppOnVendor({
    side: async () => {
      const tools = await startOnCallReceiver();
      tools.addPagerDutyKey(ROUTING_KEY);
      tools.addOpsgenieKey(API_KEY);
      return tools;
    },
    env: (tools) => ({ WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL, PAGERDUTY_EVENTS_URL: tools.pagerDutyUrl, OPSGENIE_API_URL: tools.opsgenieUrl }),
    clock,
    firstPoll: true,
  });

  async function subscribe(body: object): Promise<string> {
    const res = await t.service.admin('POST', '/api/subscriptions', body);
    expect(res.status).toBe(201);
    return res.body.subscription.id;
  }

  async function publishEachStep() {
    for (const step of story()) {
      await t.vendor.setIncidents([step]);
      expect((await t.service.poll()).outcome).toBe('ok');
      await t.service.deliverNow();
    }
  }

  it('PagerDuty: triggers under one dedup_key for creation, a note and an edit, then exactly one resolve', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    await publishEachStep();
    const events = t.side
      .calls()
      .filter((c) => c.tool === 'pagerduty')
      .map((c) => JSON.parse(c.body));
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'trigger', 'trigger', 'resolve']);
    expect(new Set(events.map((e) => e.dedup_key))).toEqual(new Set(['statuswatch/status.example.test/incident/1580']));
    expect(events[0].payload).toMatchObject({ severity: 'critical', source: 'slack-status.com', custom_details: { services: 'Files', status: 'Active' } });
    expect(events[0].links.map((l: { href: string }) => l.href)).toEqual([`${PUBLIC_URL}/incidents/1580`, 'https://slack-status.com/2026-10/6c28dfb7b670dc02']);
    expect(events[1].payload.custom_details.latest_note).toBe('A fix is being deployed.');
    expect(t.side.pagerDutyAlerts()).toMatchObject([
      { dedupKey: 'statuswatch/status.example.test/incident/1580', status: 'resolved', triggers: 3, resolves: 1 },
    ]);
  });

  it('Opsgenie: one alias, created once, a note per later change, closed once', async () => {
    await subscribe({ channel: 'opsgenie', api_key: API_KEY, region: 'eu' });
    await publishEachStep();
    const alias = 'statuswatch/status.example.test/incident/1580';
    expect(t.side.opsgenieAlerts()).toMatchObject([{ alias, status: 'closed', openedTimes: 1, closes: 1 }]);
    const [alert] = t.side.opsgenieAlerts();
    expect(alert!.notes).toHaveLength(4);
    expect(alert!.notes[2]).toContain('Uploads work again.');
    expect(alert!.notes[3]).toContain('Postmortem to follow.');
    const paths = t.side.calls().map((c) => c.path);
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
    expect(JSON.parse(t.side.calls()[0]!.body)).toMatchObject({ alias, priority: 'P1', message: '[Outage] Files: Some files fail to upload' });
  });

  it('keeps the key sealed: not in the answer, the list, the logs or the database file', async () => {
    const res = await t.service.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain(ROUTING_KEY);
    const og = await t.service.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY });
    expect(og.body.subscription).toMatchObject({ channel: 'opsgenie', region: 'us' });
    expect(JSON.stringify(og.body)).not.toContain(API_KEY);
    const list = await t.service.admin('GET', '/api/subscriptions');
    expect(JSON.stringify(list.body)).not.toContain(ROUTING_KEY);
    await publishEachStep();
    expect(t.service.logs.join('\n')).not.toContain(ROUTING_KEY);
    expect(t.service.logs.join('\n')).not.toContain(API_KEY);
    const database = readFileSync(join(t.service.dir, 'archive.db'));
    expect(database.includes(ROUTING_KEY)).toBe(false);
    expect(database.includes(API_KEY)).toBe(false);
  });

  it('retries a 429 after the Retry-After the tool asked for, on the same alert', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    t.side.failNext('pagerduty', { status: 429, retryAfterSeconds: 120 });
    await t.vendor.setIncidents([story()[0]!]);
    await t.service.poll();
    await t.service.deliverNow();
    const { body } = await t.service.admin('GET', '/api/deliveries');
    const [delivery] = body.deliveries;
    expect(delivery.state).toBe('pending');
    expect(delivery.last_error).toContain('PagerDuty HTTP 429');
    expect(Date.parse(delivery.next_attempt_at) - clock.now()).toBeGreaterThanOrEqual(115_000);
    offsetMs += 121_000;
    await t.service.deliverNow();
    expect(t.side.pagerDutyAlerts()).toMatchObject([{ status: 'triggered', triggers: 1 }]);
    expect((await t.service.admin('GET', `/api/deliveries/${delivery.id}`)).body.delivery.state).toBe('done');
  });

  it('never reopens an alert with a trigger retried after the incident ended', async () => {
    await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    await subscribe({ channel: 'opsgenie', api_key: API_KEY });
    const [created, , , resolved] = story();
    // The creation's sends are throttled; before they are retried, the vendor resolves the incident.
    t.side.failNext('pagerduty', { status: 429, retryAfterSeconds: 120 });
    t.side.failNext('opsgenie', { status: 429, retryAfterSeconds: 120 });
    await t.vendor.setIncidents([created!]);
    await t.service.poll();
    await t.service.deliverNow();
    await t.vendor.setIncidents([resolved!]);
    await t.service.poll();
    await t.service.deliverNow();
    offsetMs += 121_000;
    await t.service.deliverNow();
    const { body } = await t.service.admin('GET', '/api/deliveries');
    expect(body.deliveries.every((d: { state: string }) => d.state === 'done')).toBe(true);
    // Nobody is paged for an incident that is over: no trigger, no open alert.
    expect(t.side.calls().filter((c) => c.tool === 'pagerduty' && JSON.parse(c.body).event_action === 'trigger' && c.status === 202)).toEqual([]);
    expect(t.side.pagerDutyAlerts().filter((a) => a.status === 'triggered')).toEqual([]);
    expect(t.side.opsgenieAlerts().filter((a) => a.status === 'open')).toEqual([]);
  });

  it("pauses a PagerDuty subscription whose routing key is refused, with PagerDuty's own words", async () => {
    const id = await subscribe({ channel: 'pagerduty', routing_key: 'not-a-key-pagerduty-knows' });
    await t.vendor.setIncidents([story()[0]!]);
    await t.service.poll();
    await t.service.deliverNow();
    const { body } = await t.service.admin('GET', `/api/subscriptions/${id}`);
    expect(body.subscription.status).toBe('paused');
    expect(body.subscription.paused_reason).toBe('PagerDuty refused the key: Event object is invalid: Invalid routing key');
  });

  it('pauses an Opsgenie subscription whose API key is refused (401 and 422), with the reason Opsgenie gave', async () => {
    const unknown = await subscribe({ channel: 'opsgenie', api_key: '11111111-2222-4333-8444-555555555555' });
    const misshapen = await subscribe({ channel: 'opsgenie', api_key: 'short' });
    await t.vendor.setIncidents([story()[0]!]);
    await t.service.poll();
    await t.service.deliverNow();
    expect((await t.service.admin('GET', `/api/subscriptions/${unknown}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'Opsgenie refused the key: Could not authenticate',
    });
    expect((await t.service.admin('GET', `/api/subscriptions/${misshapen}`)).body.subscription).toMatchObject({
      status: 'paused',
      paused_reason: 'Opsgenie refused the key: Key format is not valid!',
    });
  });

  it("keeps a tool's words with half a surrogate pair as one U+FFFD, the same in the API and the admin pages", async () => {
    // JSON may carry "\ud800", which UTF-8 cannot: a tool's answer is made well formed as it is read.
    const pagerDuty = await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    const opsgenie = await subscribe({ channel: 'opsgenie', api_key: API_KEY });
    t.side.failNext('pagerduty', { status: 500, body: { status: 'error', message: 'Shard \ud800 is overloaded' } });
    t.side.failNext('opsgenie', { status: 422, body: { message: 'Key \udfff is not valid', took: 0, requestId: 'sim' } });
    await t.vendor.setIncidents([story()[0]!]);
    await t.service.poll();
    await t.service.deliverNow();
    const { body } = await t.service.admin('GET', '/api/deliveries');
    const errorOf = (id: string) => body.deliveries.find((d: { subscription_id: string }) => d.subscription_id === id)?.last_error as string;
    expect(errorOf(pagerDuty)).toMatch(/: Shard \ufffd is overloaded$/);
    expect((await t.service.admin('GET', `/api/subscriptions/${opsgenie}`)).body.subscription.paused_reason).toBe(
      'Opsgenie refused the key: Key \ufffd is not valid',
    );
    const admin = await signInAdmin(t.service);
    const page = await admin.get('/admin/deliveries');
    expect(page.html.match(/Shard \ufffd+ is overloaded/g)).toEqual(['Shard \ufffd is overloaded']);
    expect((await admin.get(`/admin/subscriptions/${opsgenie}`)).html).toContain('Key \ufffd is not valid');
  });

  it('sends a test of every event type to one test alert, closed at the end', async () => {
    const pd = await subscribe({ channel: 'pagerduty', routing_key: ROUTING_KEY });
    const og = await subscribe({ channel: 'opsgenie', api_key: API_KEY });
    for (const id of [pd, og]) {
      const res = await t.service.admin('POST', `/api/subscriptions/${id}/test`);
      expect(res.body.ok).toBe(true);
    }
    expect(t.side.pagerDutyAlerts()).toMatchObject([{ dedupKey: 'statuswatch/status.example.test/test', status: 'resolved' }]);
    expect(t.side.opsgenieAlerts()).toMatchObject([{ alias: 'statuswatch/status.example.test/test', status: 'closed' }]);
    const first = JSON.parse(t.side.calls()[0]!.body);
    expect(first.payload).toMatchObject({ severity: 'info' });
    expect(first.payload.summary).toMatch(/^\[Test\] /);
  });

  it('changes filters without the key, and takes a new key sealed', async () => {
    const id = await subscribe({ channel: 'pagerduty', routing_key: 'old-key-of-a-deleted-integration' });
    const filters = await t.service.admin('PATCH', `/api/subscriptions/${id}`, { filters: { services: ['Files'] } });
    expect(filters.status).toBe(200);
    const rekeyed = await t.service.admin('PATCH', `/api/subscriptions/${id}`, { routing_key: ROUTING_KEY });
    expect(rekeyed.status).toBe(200);
    expect(JSON.stringify(rekeyed.body)).not.toContain(ROUTING_KEY);
    expect((await t.service.admin('PATCH', `/api/subscriptions/${id}`, { url: 'https://example.test/' })).status).toBe(400);
    await t.vendor.setIncidents([story()[0]!]);
    await t.service.poll();
    await t.service.deliverNow();
    expect(t.side.pagerDutyAlerts()).toMatchObject([{ status: 'triggered' }]);
  });

  it('sends through the SSRF guard: a loopback PAGERDUTY_EVENTS_URL is refused without WEBHOOK_ALLOW_PRIVATE', async () => {
    const guarded = await startTestApp(t.vendor.url, { clock, env: { PUBLIC_URL, PAGERDUTY_EVENTS_URL: t.side.pagerDutyUrl } });
    try {
      expect((await guarded.poll()).outcome).toBe('ok');
      expect((await guarded.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY })).status).toBe(201);
      await t.vendor.setIncidents([story()[0]!]);
      await guarded.poll();
      await guarded.deliverNow();
      const [delivery] = (await guarded.admin('GET', '/api/deliveries')).body.deliveries;
      expect(delivery.state).toBe('dead');
      expect(delivery.last_error).toMatch(/^target refused: /);
      expect(t.side.calls()).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  it('refuses a subscription without its key, or with an unknown region, saying what is wrong', async () => {
    const noKey = await t.service.admin('POST', '/api/subscriptions', { channel: 'pagerduty' });
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(noKey.body)).toContain('a pagerduty subscription needs routing_key');
    const region = await t.service.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY, region: 'apac' });
    expect(region.status).toBe(400);
    expect(JSON.stringify(region.body)).toContain('region must be one of us, eu');
  });
});
