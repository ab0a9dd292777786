/** The team-chat channel ("channel"): one message per delivery to the chat's incoming webhook. */
import { renderChannelMessage } from '../../core/channel-message.ts';
import { deliveryMessageOf } from '../../core/delivery-message.ts';
import { renderMonitorChannelMessage } from '../../core/monitor-message.ts';
import type { WebhookSender } from '../../core/ports.ts';
import { outcomeOfWebhookAttempt, refused } from '../../core/send-outcome.ts';
import { NOTHING_TO_SAY, type Sender } from './sender.ts';

export function createChatChannel(deps: { webhooks: WebhookSender; publicUrl: string }): Sender {
  return async ({ subscription, events }) => {
    const message = deliveryMessageOf(events);
    if (!message) return refused(NOTHING_TO_SAY);
    const chat = message.kind === 'monitor' ? renderMonitorChannelMessage(message.data) : renderChannelMessage(message.update, { publicUrl: deps.publicUrl });
    const body = JSON.stringify(chat);
    return outcomeOfWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { 'content-type': 'application/json' }, body }));
  };
}
