/** An on-call subscription's key (PagerDuty routing key, Opsgenie API key), opened from its seal only to send. */
import type { StoredSubscription } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';

export async function openToolKey(secrets: SecretBox, subscription: StoredSubscription): Promise<string> {
  // The id only: the key itself never reaches an error or a log.
  if (!subscription.secretSealed) throw new Error(`${subscription.channel} subscription ${subscription.id} has no key`);
  return secrets.open(subscription.secretSealed);
}
