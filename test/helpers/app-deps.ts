/** Real AppDeps around a store for tests and benchmarks that build the Hono app without the Node entry. */
import { randomUUID } from 'node:crypto';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { checkWebhookUrl } from '../../src/adapters/webhook-target-guard.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import type { Poller } from '../../src/app/poller.ts';
import { createServiceMetrics } from '../../src/app/service-metrics.ts';
import { createSubscriptionService } from '../../src/app/subscriptions.ts';
import { createCursorCodec, randomSecret } from '../../src/core/cursor.ts';
import type { Logger, OutboxSignal, Store } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';
import type { AppDeps } from '../../src/http/deps.ts';

/** Routes tested without a runtime: nothing schedules delivery rounds, so a signal has no one to wake. */
const NOBODY_DELIVERS: OutboxSignal = { outboxChanged: () => {} };

export async function buildAppDeps(store: Store, options: { poller: Poller; logger: Logger; startedAt: number; outbox?: OutboxSignal }): Promise<AppDeps> {
  const outbox = options.outbox ?? NOBODY_DELIVERS;
  const clock = { now: () => Date.now() };
  const webhooks = createHttpWebhookSender({ allowPrivate: false, userAgent: 'statuswatch-test' });
  const secrets = await createSecretBox(generateSecretKey());
  const sender = createChannelSender({ store, webhooks, mailer: null, secrets, clock, publicUrl: 'http://localhost', sanitizeHtml: sanitizeNoteHtml });
  const subscriptions = createSubscriptionService({
    store,
    secrets,
    sender,
    mailer: null,
    clock,
    logger: options.logger,
    newId: () => `sub_${randomUUID()}`,
    checkTarget: (url) => checkWebhookUrl(url, { allowPrivate: false }),
    outbox,
  });
  return {
    store,
    poller: options.poller,
    clock,
    logger: options.logger,
    cursors: await createCursorCodec(await store.secret('cursor', () => randomSecret())),
    assets: new Map(),
    startedAt: options.startedAt,
    sanitizeHtml: sanitizeNoteHtml,
    subscriptions,
    metrics: createServiceMetrics(),
    allowPrivateWebhooks: false,
    outbox,
    clientAddress: () => '127.0.0.1',
  };
}
