/**
 * Routes that write deliveries tell the runtime, through createApp(deps).request() (no port, no
 * process): a replay, a replay of a period, a resume. The runtime here is Node's real delivery
 * scheduler over a real SQLite file, sending to a real webhook receiver on loopback, with an idle
 * check ten minutes away: only the signal can make the webhooks arrive during the test.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { startNodeDeliveryScheduler, type NodeDeliveryScheduler } from '../../src/adapters/node-delivery-scheduler.ts';
import { createDueDeliveries } from '../../src/app/due-deliveries.ts';
import { createApp } from '../../src/http/app.ts';
import { applyAsPoller, benchSecrets, newsPoll, openSubscribedArchive, webhookDeliverer } from '../bench/notifications-world.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ADMIN_TOKEN = 'outbox-signal-admin-token-0123';
const RECIPIENTS = 3;
const IDLE_CHECK_MS = 10 * 60_000;

describe('routes that write deliveries signal the outbox', () => {
  let receiver: WebhookReceiver;
  let archive: TempArchive;
  let scheduler: NodeDeliveryScheduler;
  let app: ReturnType<typeof createApp>;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    const secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-outbox-signal-', RECIPIENTS, receiver.url, secrets.sealed);
    const clock = { now: () => Date.now() };
    const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger, name: 'outbox-signal' });
    scheduler = startNodeDeliveryScheduler({ due: createDueDeliveries({ deliverer, store: archive.store, clock, logger }), clock, idleCheckMs: IDLE_CHECK_MS });
    await scheduler.settled(); // its first round is done: it now sleeps until the idle check
    const poller = { pollOnce: async () => ({ status: 'skipped' as const, reason: 'another poll is running' as const }) };
    app = createApp(await buildAppDeps({ ...(await nodeAppPorts(archive.connection, logger)), poller, outbox: scheduler }, { env: { ADMIN_TOKEN } }));
  });
  afterEach(async () => {
    await scheduler.stop();
    await receiver.close();
    archive.remove();
  });
  afterAll(() => webhooks.close());

  const post = (path: string, body?: unknown) =>
    app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A news poll written and signalled as the poller does, and its webhooks received. */
  async function deliverNews(expected: number): Promise<void> {
    await applyAsPoller(archive.store, newsPoll(1).input);
    scheduler.outboxChanged();
    await receiver.waitFor(expected, 10_000);
  }

  it('a replay of one delivery, and of a period, go out at once', async () => {
    // The UTC day of the deliveries, read before they are made: read after, across midnight, it
    // would be the day after them, and the replay of the period would find none.
    const today = new Date().toISOString().slice(0, 10);
    await deliverNews(RECIPIENTS);
    const listed = await app.request('http://localhost/api/deliveries?limit=1', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const [delivery] = ((await listed.json()) as { deliveries: { id: string | number }[] }).deliveries;

    expect(await (await post(`/api/deliveries/${delivery!.id}/replay`)).json()).toEqual({ ok: true, replayed: 1 });
    const again = await receiver.waitFor(RECIPIENTS + 1, 10_000);
    const firstIds = new Set(again.slice(0, RECIPIENTS).map((r) => r.headers['webhook-id']));
    expect(firstIds.has(again[RECIPIENTS]!.headers['webhook-id'])).toBe(true);

    expect(await (await post('/api/delivery-replays', { since: today })).json()).toEqual({ ok: true, replayed: RECIPIENTS });
    expect(await receiver.waitFor(2 * RECIPIENTS + 1, 10_000)).toHaveLength(2 * RECIPIENTS + 1);
  });

  it("the admin pages' replay and replay-since forms send at once too", async () => {
    await deliverNews(RECIPIENTS);
    const form = (path: string, fields: Record<string, string>, cookie = '') =>
      app.request(`http://localhost${path}`, {
        method: 'POST',
        body: new URLSearchParams(fields),
        headers: { origin: 'http://localhost', ...(cookie ? { cookie } : {}) },
      });
    const signedIn = await form('/admin/sign-in', { token: ADMIN_TOKEN, next: '/admin/deliveries' });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const list = await (await app.request('http://localhost/admin/deliveries', { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(list)?.[1] ?? '';
    const deliveryId = /<a href="\/admin\/deliveries\/(\d+)">/.exec(list)?.[1];

    expect((await form(`/admin/deliveries/${deliveryId}/replay`, { csrf }, cookie)).status).toBe(303);
    expect(await receiver.waitFor(RECIPIENTS + 1, 10_000)).toHaveLength(RECIPIENTS + 1);
    expect((await form('/admin/delivery-replays', { csrf, since: '2000-01-01' }, cookie)).headers.get('location')).toBe(
      `/admin/deliveries?replayed=${RECIPIENTS}`,
    );
    expect(await receiver.waitFor(2 * RECIPIENTS + 1, 10_000)).toHaveLength(2 * RECIPIENTS + 1);
  });

  it('a resume sends what waited while the subscription was paused', async () => {
    // Paused after the news was written for it, before the deliverer got to it.
    await applyAsPoller(archive.store, newsPoll(1).input);
    expect((await post('/api/subscriptions/sub_bench000000/pause')).status).toBe(200);
    scheduler.outboxChanged();
    await receiver.waitFor(RECIPIENTS - 1, 10_000);
    await scheduler.settled();
    expect(receiver.received).toHaveLength(RECIPIENTS - 1);

    expect((await post('/api/subscriptions/sub_bench000000/resume')).status).toBe(200);
    expect(await receiver.waitFor(RECIPIENTS, 10_000)).toHaveLength(RECIPIENTS);
  });
});
