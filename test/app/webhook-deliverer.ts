/**
 * A real deliverer over a store, sending webhooks over HTTP (private addresses allowed: the test
 * receivers listen on loopback), on the real clock unless given one, and a quiet logger: what two deliverer tests
 * need to race claims or a purge against real sends. Kept beside them, not in test/helpers: the
 * service's own deliverer is made in one place (buildServices), which test/entry/services.test.ts
 * holds for src/ and the shared helpers.
 */
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import { createDeliverer, type Deliverer, type DelivererDeps } from '../../src/app/deliverer.ts';
import type { Clock, Logger, Store } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import { generateWebhookSecret } from '../../src/core/webhook-signing.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const realClock: Clock = { now: () => Date.now() };

export type WebhookDelivererOptions = Partial<Pick<DelivererDeps, 'claimLeaseMs' | 'concurrency' | 'maxRenewalsPerRound' | 'clock'>> & {
  instanceId: string;
  /** The HTTP send's time limit, always on the real clock. */
  sendTimeoutMs: number;
};

export function webhookDeliverer(store: Store, secrets: SecretBox, options: WebhookDelivererOptions): Deliverer {
  const { instanceId, sendTimeoutMs, clock = realClock, ...tuning } = options;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test', timeoutMs: sendTimeoutMs });
  return createDeliverer({
    store,
    sender: createChannelSender({ store, webhooks, mailer: null, secrets, clock, publicUrl: 'http://status.test', sanitizeHtml: sanitizeNoteHtml }),
    mailer: null,
    clock,
    logger: quiet,
    publicUrl: 'http://status.test',
    instanceId,
    isHolderGone: () => false,
    ...tuning,
  });
}

/**
 * Webhook subscriptions `ids` to `target`, made a second before `nowMs`, all signing with one
 * secret; answers the secret box that opens it, for the deliverer.
 */
export async function webhookSubscriptions(store: Store, target: string, ids: readonly string[], nowMs: number): Promise<SecretBox> {
  const box = await createSecretBox(generateSecretKey());
  const sealed = await box.seal(generateWebhookSecret());
  for (const id of ids) await store.createSubscription(storedSubscription(id, { target, secretSealed: sealed }, nowMs - 1000));
  return box;
}
