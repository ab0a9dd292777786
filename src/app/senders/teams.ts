/**
 * Microsoft Teams ("teams"): an Adaptive Card per delivery, posted to the subscription's Workflows
 * webhook URL. Each card shows the incident's latest note: a change that brings none (a title
 * edit) shows the newest an earlier card showed, kept per subscription and incident in the same
 * message rows Discord keeps its message ids in.
 */
import type { AppMessageStore, Clock, StoredSubscription, WebhookAttempt, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { gone, outcomeOfWebhookAttempt, refused, retry, type SendOutcome } from '../../core/send-outcome.ts';
import { renderTeamsComponentMessage, renderTeamsMessage, renderTeamsMonitorMessage, type TeamsMessage } from '../../core/teams-message.ts';
import { openSealedUrl, toolErrorText } from './sealed-url.ts';
import { type Sender, sayingOneMessage } from './sender.ts';

/** What the message rows hold for a Teams subscription in place of a conversation id and a message ts: a card is never edited. */
const TEAMS_CONVERSATION = 'teams';

export type TeamsChannelDeps = {
  webhooks: WebhookSender;
  secrets: SecretBox;
  store: Pick<AppMessageStore, 'findAppRoot' | 'beginAppRoot' | 'recordAppRoot'>;
  clock: Clock;
  publicUrl: string;
};

export function createTeamsChannel(deps: TeamsChannelDeps): Sender {
  const { store, clock } = deps;
  return sayingOneMessage(async ({ subscription, deliveryKey, mode }, message) => {
    const url = await openSealedUrl(deps.secrets, subscription);
    if (!url) return refused(`teams subscription ${subscription.id} has no sealed URL`);
    if (message.kind === 'monitor') return post(url, subscription, renderTeamsMonitorMessage(message.data));
    if (message.kind === 'component') return post(url, subscription, renderTeamsComponentMessage(message.data, deps));
    const { update, revision } = message;
    if (mode === 'test') return post(url, subscription, renderTeamsMessage(update, update.note, deps));
    const row = await store.findAppRoot(subscription.id, update.incidentId);
    // A late retry of an older change shows its own note only: a newer one belongs to a later state.
    const note = update.note ?? (row && row.revision <= revision ? row.note : null);
    const outcome = await post(url, subscription, renderTeamsMessage(update, note, deps));
    if (outcome.kind === 'sent') {
      const now = clock.now();
      if (!row)
        await store.beginAppRoot(
          { subscriptionId: subscription.id, incidentId: update.incidentId, conversationId: TEAMS_CONVERSATION, key: deliveryKey, revision },
          now,
        );
      await store.recordAppRoot(subscription.id, update.incidentId, { ts: TEAMS_CONVERSATION, revision, note: update.note }, now);
    }
    return outcome;
  });

  async function post(url: string, subscription: StoredSubscription, card: TeamsMessage): Promise<SendOutcome> {
    const attempt = await deps.webhooks.send({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(card) });
    return teamsOutcome(subscription, attempt);
  }
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
