/** The team-chat channel ("channel"): one message per delivery to the chat's incoming webhook. */
import { renderChannelMessage } from '../../core/channel-message.ts';
import { renderComponentChannelMessage } from '../../core/component-message.ts';
import { renderMonitorChannelMessage } from '../../core/monitor-message.ts';
import type { WebhookSender } from '../../core/ports.ts';
import { outcomeOfWebhookAttempt } from '../../core/send-outcome.ts';
import { type Sender, sayingOneMessage } from './sender.ts';

export function createChatChannel(deps: { webhooks: WebhookSender; publicUrl: string }): Sender {
  return sayingOneMessage(async ({ subscription }, message) => {
    const chat =
      message.kind === 'monitor'
        ? renderMonitorChannelMessage(message.data)
        : message.kind === 'component'
          ? renderComponentChannelMessage(message.data, deps)
          : renderChannelMessage(message.update, { publicUrl: deps.publicUrl });
    const body = JSON.stringify(chat);
    return outcomeOfWebhookAttempt(await deps.webhooks.send({ url: subscription.target, headers: { 'content-type': 'application/json' }, body }));
  });
}
