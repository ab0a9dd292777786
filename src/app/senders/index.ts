/**
 * Every channel's sender, by channel. A new channel is one module beside this one and one line
 * here; the record's type makes a channel without a sender a compile error.
 */
import type { TokenPurpose } from '../../core/confirmation-token.ts';
import type { Clock, Mailer, WebhookSender } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { AppMessageSender } from '../workspace-app/message-sender.ts';
import type { GroupMail } from '../group-mail.ts';
import { createChatChannel } from './chat-channel.ts';
import { createEmailChannel } from './email.ts';
import { createGroupEmailChannel } from './group-email.ts';
import type { Senders } from './sender.ts';
import { createWebhookChannel } from './webhook.ts';
import { createWorkspaceAppChannel } from './workspace-app.ts';

export type SendersDeps = {
  webhooks: WebhookSender;
  mailer: Mailer | null;
  secrets: SecretBox;
  clock: Clock;
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  linkFor: (subscriptionId: string, purpose: TokenPurpose) => Promise<string>;
  app: AppMessageSender | null;
  groupMail: GroupMail | null;
  adminEmail: string | null;
};

export function createSenders(deps: SendersDeps): Senders {
  return {
    webhook: createWebhookChannel(deps),
    channel: createChatChannel(deps),
    email: createEmailChannel({ ...deps, groupEmail: deps.groupMail ? createGroupEmailChannel({ groupMail: deps.groupMail }) : null }),
    app: createWorkspaceAppChannel(deps),
  };
}
