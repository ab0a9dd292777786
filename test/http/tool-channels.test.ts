/**
 * PagerDuty, Opsgenie, Microsoft Teams and Discord subscriptions in both runtimes (Node with
 * SQLite; workerd with D1 in the workers project), through the outbox the runtime delivers from:
 * each kind delivers, a change of each kind keeps or replaces what it should, each pauses and
 * resumes, and the attempt log keeps each tool's own words. A real receiver on loopback stands
 * where the settings and the subscriptions' URLs point, answering as each tool documents.
 */
import { describe, expect, it } from 'vitest';
import { ACCEPTED, API_KEY, ROUTING_KEY } from '../fixtures/tool-answers.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
type Tool = keyof typeof ACCEPTED;
const TOOLS: readonly Tool[] = ['pagerduty', 'opsgenie', 'teams', 'discord'];

describe('PagerDuty, Opsgenie, Teams and Discord subscriptions', () => {
  const t = useAppOnVendor({
    side: startWebhookReceiver,
    env: (tool) => ({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      PUBLIC_URL: 'https://status.example.test',
      PAGERDUTY_EVENTS_URL: `${tool.url}/pagerduty/v2/enqueue`,
      OPSGENIE_API_URL: `${tool.url}/opsgenie`,
    }),
    firstPoll: true,
  });

  const active = rawIncident({ id: 1580, title: 'Some files fail to upload', services: ['Files'] });

  function bodyOf(kind: Tool, url = `${t.side.url}/${kind}/webhook`): Record<string, unknown> {
    if (kind === 'pagerduty') return { channel: kind, routing_key: ROUTING_KEY };
    if (kind === 'opsgenie') return { channel: kind, api_key: API_KEY };
    return { channel: kind, url };
  }

  async function subscribe(kind: Tool, url?: string): Promise<string> {
    const created = await t.service.admin('POST', '/api/subscriptions', bodyOf(kind, url));
    expect(created.status, kind).toBe(201);
    return created.body.subscription.id;
  }

  /** The incident becomes news, and the outbox delivers it. */
  async function publish(incident = active) {
    await t.vendor.setIncidents([incident]);
    expect((await t.service.poll()).outcome).toBe('ok');
    await t.service.deliverNow();
  }

  it('delivers each kind through the outbox, to the tool the subscription names', async () => {
    for (const kind of TOOLS) await subscribe(kind);
    // One call each; the order the outbox takes them in is its own.
    t.side.answerNext(...TOOLS.map(() => ({ status: 202, headers: JSON_TYPE, body: ACCEPTED.discord.body })));
    await publish();
    const paths = (await t.side.waitFor(4)).map((r) => r.path.split('?')[0]);
    expect(paths.sort()).toEqual(['/hook/discord/webhook', '/hook/opsgenie/v2/alerts', '/hook/pagerduty/v2/enqueue', '/hook/teams/webhook']);
    const deliveries = (await t.service.admin('GET', '/api/deliveries')).body.deliveries as { channel: string; state: string }[];
    expect(deliveries.map((d) => [d.channel, d.state]).sort()).toEqual(TOOLS.map((t) => [t, 'done']).sort());
  });
  it('Discord: the incident’s message posted once with wait=true, then edited in place when it is resolved', async () => {
    await subscribe('discord');
    t.side.answerNext(ACCEPTED.discord, ACCEPTED.discord);
    await publish();
    await publish({ ...active, status: 'resolved', date_updated: '2026-10-01T07:10:00-07:00' });
    const calls = await t.side.waitFor(2);
    expect(calls.map((c) => c.path)).toEqual(['/hook/discord/webhook?wait=true', '/hook/discord/webhook/messages/1180000000000000001']);
    expect(JSON.parse(calls[1]!.body).embeds[0].title).toContain('Some files fail to upload');
  });

  it('keeps a Teams or Discord URL through a change of filters, and sends to a new URL once given', async () => {
    for (const kind of ['teams', 'discord'] as const) {
      const id = await subscribe(kind, `${t.side.url}/${kind}/old`);
      expect((await t.service.admin('PATCH', `/api/subscriptions/${id}`, { filters: { services: ['Files'] } })).status, kind).toBe(200);
      t.side.answerNext(ACCEPTED[kind]);
      await publish(rawIncident({ id: kind === 'teams' ? 1 : 2, title: `Old URL ${kind}`, services: ['Files'] }));
      const moved = await t.service.admin('PATCH', `/api/subscriptions/${id}`, { url: `${t.side.url}/${kind}/new` });
      expect(moved.status, kind).toBe(200);
      expect(moved.body.subscription.url_host).toBe(new URL(t.side.url).host);
      t.side.answerNext(ACCEPTED[kind]);
      await publish(rawIncident({ id: kind === 'teams' ? 3 : 4, title: `New URL ${kind}`, services: ['Files'] }));
      await t.service.admin('DELETE', `/api/subscriptions/${id}`);
    }
    expect((await t.side.waitFor(4)).map((r) => r.path.split('?')[0])).toEqual([
      '/hook/teams/old',
      '/hook/teams/new',
      '/hook/discord/old',
      '/hook/discord/new',
    ]);
  });

  it('changes an on-call key or region, keeps the key through other changes, and refuses a field of another kind', async () => {
    const pd = await subscribe('pagerduty');
    const og = await subscribe('opsgenie');
    const teams = await subscribe('teams');
    const discord = await subscribe('discord');
    expect((await t.service.admin('GET', `/api/subscriptions/${og}`)).body.subscription.region).toBe('us');
    const moved = await t.service.admin('PATCH', `/api/subscriptions/${og}`, { region: 'eu' });
    expect(moved.status).toBe(200);
    expect(moved.body.subscription.region).toBe('eu');
    expect((await t.service.admin('PATCH', `/api/subscriptions/${pd}`, { filters: { services: ['Files'] } })).status).toBe(200);
    const refusals = await Promise.all([
      t.service.admin('PATCH', `/api/subscriptions/${pd}`, { url: 'https://example.test/' }),
      t.service.admin('PATCH', `/api/subscriptions/${og}`, { url: 'https://example.test/' }),
      t.service.admin('PATCH', `/api/subscriptions/${pd}`, { api_key: API_KEY }),
      t.service.admin('PATCH', `/api/subscriptions/${og}`, { routing_key: ROUTING_KEY }),
      t.service.admin('PATCH', `/api/subscriptions/${pd}`, { region: 'eu' }),
      t.service.admin('PATCH', `/api/subscriptions/${teams}`, { routing_key: ROUTING_KEY }),
      t.service.admin('PATCH', `/api/subscriptions/${discord}`, { api_key: API_KEY }),
      t.service.admin('PATCH', `/api/subscriptions/${teams}`, { region: 'eu' }),
      t.service.admin('PATCH', `/api/subscriptions/${discord}`, { email: 'someone@example.test' }),
    ]);
    expect(refusals.map((r) => r.status)).toEqual(refusals.map(() => 400));
    expect(refusals[2]!.body.detail).toBe('a pagerduty subscription has routing_key, not api_key');
    expect(refusals[7]!.body.detail).toBe('a teams subscription has url, not region');
    // The kept keys are the ones sent; a new one replaces it.
    expect((await t.service.admin('PATCH', `/api/subscriptions/${og}`, { api_key: 'a-new-opsgenie-key' })).status).toBe(200);
    await t.service.admin('DELETE', `/api/subscriptions/${teams}`);
    await t.service.admin('DELETE', `/api/subscriptions/${discord}`);
    t.side.answerNext(ACCEPTED.pagerduty, ACCEPTED.opsgenie);
    await publish();
    const calls = await t.side.waitFor(2);
    const pdCall = calls.find((c) => c.path.includes('/pagerduty/'))!;
    const ogCall = calls.find((c) => c.path.includes('/opsgenie/'))!;
    expect(JSON.parse(pdCall.body).routing_key).toBe(ROUTING_KEY);
    expect(ogCall.headers.authorization).toBe('GenieKey a-new-opsgenie-key');
  });

  it('holds what waits for each kind while paused, and sends it once resumed', async () => {
    const ids = [];
    for (const kind of TOOLS) ids.push(await subscribe(kind));
    await t.vendor.setIncidents([active]);
    expect((await t.service.poll()).outcome).toBe('ok');
    for (const id of ids) expect((await t.service.admin('POST', `/api/subscriptions/${id}/pause`)).status).toBe(200);
    await t.service.deliverNow();
    expect(t.side.received).toEqual([]);
    t.side.answerNext(...TOOLS.map(() => ({ status: 202, headers: JSON_TYPE, body: ACCEPTED.discord.body })));
    for (const id of ids) expect((await t.service.admin('POST', `/api/subscriptions/${id}/resume`)).status).toBe(200);
    await t.service.deliverNow();
    expect((await t.side.waitFor(4)).length).toBe(4);
  });

  it("keeps each tool's own error text in the attempt log", async () => {
    const refusals: Record<Tool, { status: number; headers: typeof JSON_TYPE; body: string; said: string }> = {
      pagerduty: {
        status: 400,
        headers: JSON_TYPE,
        body: '{"status":"invalid event","message":"Event object is invalid","errors":["Length of summary is too long"]}',
        said: 'Length of summary is too long',
      },
      opsgenie: {
        status: 400,
        headers: JSON_TYPE,
        body: '{"message":"Message can not be empty.","took":0.001,"requestId":"r"}',
        said: 'Message can not be empty.',
      },
      teams: {
        status: 400,
        headers: JSON_TYPE,
        body: '{"error":{"code":"TriggerInputSchemaMismatch","message":"The input body for trigger does not match its schema"}}',
        said: 'The input body for trigger does not match its schema',
      },
      discord: { status: 400, headers: JSON_TYPE, body: '{"message":"Invalid Form Body","code":50035}', said: 'Invalid Form Body' },
    };
    for (const kind of TOOLS) {
      const id = await subscribe(kind);
      const { said: _said, ...answer } = refusals[kind];
      t.side.answerNext(answer);
      await publish(rawIncident({ id: 100 + TOOLS.indexOf(kind), title: `Refused by ${kind}`, services: ['Files'] }));
      const [delivery] = (await t.service.admin('GET', `/api/deliveries?subscription=${id}`)).body.deliveries;
      const detail = (await t.service.admin('GET', `/api/deliveries/${delivery.id}`)).body.delivery;
      expect(detail.last_error, kind).toContain(refusals[kind].said);
      expect(detail.attempt_log[0].error, kind).toContain(refusals[kind].said);
      await t.service.admin('DELETE', `/api/subscriptions/${id}`);
    }
  });
});
