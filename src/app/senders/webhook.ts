/** The webhook channel: one signed request per event, under a webhook-id derived from the delivery key. */
import type { StatusEvent } from '../../core/events.ts';
import { webhookMessageId } from '../../core/fanout.ts';
import type { Clock, Hashes, StoredSubscription, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { outcomeOfWebhookAttempt } from '../../core/send-outcome.ts';
import { webhookPayloadOf } from '../../core/webhook-payload.ts';
import { webhookHeaders } from '../../core/webhook-signing.ts';
import type { SendMode, Sender } from './sender.ts';

const OPENED_SECRETS_MAX = 50_000;

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
  // Opened secrets by their sealed text: opening (AES-GCM through Web Crypto) cost a fifth of a
  // delivery. A rotation seals a new text, so a stale entry is never used; the bound keeps memory flat.
  const openedSecrets = new Map<string, string>();
  async function open(sealed: string): Promise<string> {
    let secret = openedSecrets.get(sealed);
    if (secret === undefined) {
      secret = await deps.secrets.open(sealed);
      if (openedSecrets.size >= OPENED_SECRETS_MAX) openedSecrets.clear();
      openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  async function signingSecrets(subscription: StoredSubscription): Promise<string[]> {
    if (!subscription.secretSealed) throw new Error(`webhook subscription ${subscription.id} has no signing secret`);
    const secrets = [await open(subscription.secretSealed)];
    // During a rotation both sign, so receivers can switch over at their own pace.
    if (subscription.previousSecretSealed && (subscription.previousSecretUntil ?? 0) > clock.now()) {
      secrets.push(await open(subscription.previousSecretSealed));
    }
    return secrets;
  }

  // Bodies by event: one claim hands every subscriber's delivery of an event the same event
  // object, so its body (the payload, its notes turned to text, then JSON) is made once, not once
  // per subscriber. Weak keys: a body lives no longer than the claim's events.
  const bodies = new WeakMap<StatusEvent, string>();
  function bodyOf(event: StatusEvent): string {
    let body = bodies.get(event);
    if (body === undefined) {
      body = JSON.stringify(webhookPayloadOf(event));
      bodies.set(event, body);
    }
    return body;
  }

  return async ({ subscription, events, deliveryKey, mode }) => {
    const body = bodyOf(events[0]!);
    const headers = await webhookHeaders({
      id: await webhookIdOf(deliveryKey, mode, hashes),
      timestampSeconds: Math.floor(clock.now() / 1000),
      body,
      secrets: await signingSecrets(subscription),
      hashes,
    });
    return outcomeOfWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { ...headers }, body }));
  };
}
