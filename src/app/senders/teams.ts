/** Microsoft Teams ("teams"): an Adaptive Card per delivery, posted to the subscription's Workflows webhook URL. */
import type { StoredSubscription, WebhookAttempt, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { gone, outcomeOfWebhookAttempt, refused, retry, type SendOutcome } from '../../core/send-outcome.ts';
import { renderTeamsMessage, renderTeamsMonitorMessage } from '../../core/teams-message.ts';
import { openSealedUrl, toolErrorText } from './sealed-url.ts';
import { type Sender, sayingOneMessage } from './sender.ts';

export function createTeamsChannel(deps: { webhooks: WebhookSender; secrets: SecretBox; publicUrl: string }): Sender {
  return sayingOneMessage(async ({ subscription }, message) => {
    const url = await openSealedUrl(deps.secrets, subscription);
    if (!url) return refused(`teams subscription ${subscription.id} has no sealed URL`);
    const card = message.kind === 'monitor' ? renderTeamsMonitorMessage(message.data) : renderTeamsMessage(message.update, { publicUrl: deps.publicUrl });
    const attempt = await deps.webhooks.send({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(card) });
    return teamsOutcome(subscription, attempt);
  });
}

/** Workflows answers 202 Accepted; a 404 means the workflow (and its URL) is gone. */
function teamsOutcome(subscription: StoredSubscription, attempt: WebhookAttempt): SendOutcome {
  const answer = { status: attempt.status, excerpt: attempt.responseExcerpt };
  if (attempt.ok || attempt.status === null) return outcomeOfWebhookAttempt(attempt);
  const said = toolErrorText(attempt.status, attempt.responseExcerpt);
  if (attempt.status === 404 || attempt.status === 410)
    return gone(
      said,
      `the Teams workflow behind this URL no longer exists (HTTP ${attempt.status}): make a new one and update subscription ${subscription.id}`,
      answer,
    );
  if (attempt.status === 429 || attempt.status >= 500) return retry(said, { ...answer, retryAfterMs: attempt.retryAfterMs });
  return refused(said, answer);
}
