/** What both on-call senders read before they send: the subscription's key, opened from its seal only to send, and the incident's status now. */
import type { DeliveryMessage } from '../../core/delivery-message.ts';
import type { StoredSubscription } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';

export async function openToolKey(secrets: SecretBox, subscription: StoredSubscription): Promise<string> {
  // The id only: the key itself never reaches an error or a log.
  if (!subscription.secretSealed) throw new Error(`${subscription.channel} subscription ${subscription.id} has no key`);
  return secrets.open(subscription.secretSealed);
}

/** The archive's status of the delivery's incident now; undefined for the monitor's news, which concerns no incident. */
export async function statusNow(
  deps: { incidentStatusNow: (incidentId: string) => Promise<string | null> },
  message: DeliveryMessage,
): Promise<string | null | undefined> {
  return message.kind === 'incident' ? deps.incidentStatusNow(message.update.incidentId) : undefined;
}
