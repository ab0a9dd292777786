/**
 * A poll that wrote news tells the runtime through the outbox signal: a real vendor feed over
 * HTTP, a real SQLite archive with webhook subscribers, Node's real delivery scheduler whose idle
 * check is ten minutes away, and a real webhook receiver. Only the signal can bring the webhooks.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createFetchFeedClient } from '../../src/adapters/fetch-feed-client.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { startNodeDeliveryScheduler, type NodeDeliveryScheduler } from '../../src/adapters/node-delivery-scheduler.ts';
import { createDueDeliveries } from '../../src/app/due-deliveries.ts';
import { createPoller } from '../../src/app/poller.ts';
import { benchSecrets, openSubscribedArchive, webhookDeliverer } from '../bench/notifications-world.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const RECIPIENTS = 2;

describe('a poll with news signals the outbox', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let archive: TempArchive;
  let scheduler: NodeDeliveryScheduler;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });

  beforeAll(async () => {
    vendor = await startTestVendor();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await scheduler.stop();
    await webhooks.close();
    await receiver.close();
    await vendor.close();
    archive.remove();
  });

  it('its webhooks go out at once, not at the idle check', async () => {
    const secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-poll-signal-', RECIPIENTS, receiver.url, secrets.sealed);
    const clock = { now: () => Date.now() };
    const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger, name: 'poll-signal' });
    scheduler = startNodeDeliveryScheduler({ due: createDueDeliveries({ deliverer, store: archive.store, clock, logger }), clock, idleCheckMs: 10 * 60_000 });
    await scheduler.settled(); // its first round is done: it now sleeps until the idle check
    const poller = createPoller({
      store: archive.store,
      feed: createFetchFeedClient({ baseUrl: vendor.url, timeoutMs: 2000, maxBytes: 5_000_000, userAgent: 'test', clock }),
      clock,
      logger,
      instanceId: 'poll-signal',
      newId: randomUUID,
      outbox: scheduler,
    });

    await vendor.setIncidents([rawIncident({ id: 7 })]);
    const result = await poller.pollOnce();
    expect(result.status !== 'skipped' && result.events.map((e) => [e.type, e.backfill])).toEqual([['incident.created', false]]);
    const received = await receiver.waitFor(RECIPIENTS, 10_000);
    expect(received.map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(['incident.created', 'incident.created']);
  });
});
