/** The webhook channel: one signed request per event, under a webhook-id derived from the delivery key. */
import type { StatusEvent } from '../../core/events.ts';
import type { MessageSource } from '../../core/notification-message.ts';
import { webhookMessageId } from '../../core/fanout.ts';
import type { Clock, Hashes, StoredSubscription, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { outcomeOfWebhookAttempt } from '../../core/send-outcome.ts';
import { webhookPayloadOf } from '../../core/webhook-payload.ts';
import { decodeWebhookSecret, webhookHeaders } from '../../core/webhook-signing.ts';
import type { SendMode, Sender } from './sender.ts';

const OPENED_SECRETS_MAX = 50_000;

type OpenedSecret = { secret: string; key: Uint8Array };

export type WebhookSenderDeps = { webhooks: WebhookSender; secrets: SecretBox; clock: Clock; hashes: Hashes };

/**
 * A delivery's webhook-id: the same on every attempt, so receivers drop a repeat. A test's says
 * so, and is new for every test (its key is), so receivers that drop repeats do not drop the tests.
 */
async function webhookIdOf(deliveryKey: string, mode: SendMode, hashes: Hashes): Promise<string> {
  const id = await webhookMessageId(deliveryKey, hashes);
  return mode === 'test' ? `msg_test_${id.slice('msg_'.length)}` : id;
}

export function createWebhookChannel(deps: WebhookSenderDeps): Sender {
  const { clock, hashes } = deps;
  // Opened secrets by their sealed text, each with its HMAC key decoded: opening (AES-GCM through
  // Web Crypto) cost a fifth of a delivery, and decoding the key a tenth of the signature. A
  // rotation seals a new text, so a stale entry is never used; the bound keeps memory flat.
  const openedSecrets = new Map<string, OpenedSecret>();
  async function open(sealed: string): Promise<OpenedSecret> {
    let opened = openedSecrets.get(sealed);
    if (opened === undefined) {
      const secret = await deps.secrets.open(sealed);
      opened = { secret, key: decodeWebhookSecret(secret) };
      if (openedSecrets.size >= OPENED_SECRETS_MAX) openedSecrets.clear();
      openedSecrets.set(sealed, opened);
    }
    return opened;
  }

  /** The HMAC keys that sign for `subscription`: one per distinct secret. */
  async function signingKeys(subscription: StoredSubscription): Promise<Uint8Array[]> {
    if (!subscription.secretSealed) throw new Error(`webhook subscription ${subscription.id} has no signing secret`);
    const current = await open(subscription.secretSealed);
    // During a rotation both sign, so receivers can switch over at their own pace.
    if (subscription.previousSecretSealed && (subscription.previousSecretUntil ?? 0) > clock.now()) {
      const previous = await open(subscription.previousSecretSealed);
      // The same secret sealed twice signs once, as one `v1,` signature per distinct secret.
      if (previous.secret !== current.secret) return [current.key, previous.key];
    }
    return [current.key];
  }

  // Bodies by event: one claim hands every subscriber's delivery of an event the same event
  // object, so its body (the payload, its notes turned to text, then JSON) is made once, not once
  // per subscriber. Weak keys: a body lives no longer than the claim's events.
  // An event's source is its incident's (channel-sender.ts), so the event alone keys its body.
  const bodies = new WeakMap<StatusEvent, string>();
  function bodyOf(event: StatusEvent, source: MessageSource | undefined): string {
    let body = bodies.get(event);
    if (body === undefined) {
      body = JSON.stringify(webhookPayloadOf(event, source));
      bodies.set(event, body);
    }
    return body;
  }

  return async ({ subscription, events, deliveryKey, mode, source }) => {
    const body = bodyOf(events[0]!, source);
    const headers = await webhookHeaders({
      id: await webhookIdOf(deliveryKey, mode, hashes),
      timestampSeconds: Math.floor(clock.now() / 1000),
      body,
      keys: await signingKeys(subscription),
      hashes,
    });
    return outcomeOfWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { ...headers }, body }));
  };
}
