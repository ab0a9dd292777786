/**
 * Every channel's sender, by channel. A new channel is one module beside this one and one line
 * here; the record's type makes a channel without a sender a compile error.
 */
import type { TokenPurpose } from '../../core/confirmation-token.ts';
import type { ChannelSenderDeps } from '../channel-sender.ts';
import { createChatChannel } from './chat-channel.ts';
import { createDiscordChannel } from './discord.ts';
import { createEmailChannel } from './email.ts';
import { createGroupEmailChannel } from './group-email.ts';
import { createOpsgenieChannel } from './opsgenie.ts';
import { createPagerDutyChannel } from './pagerduty.ts';
import type { Senders } from './sender.ts';
import { createTeamsChannel } from './teams.ts';
import { createWebhookChannel } from './webhook.ts';
import { createWorkspaceAppChannel } from './workspace-app.ts';

/** The channel sender's settings, every optional one decided (null: not configured), and how links are made; finding a delivery's source is the channel sender's. */
export type SendersDeps = Required<Omit<ChannelSenderDeps, 'sourceName' | 'mainFeedName'>> & {
  linkFor: (subscriptionId: string, purpose: TokenPurpose) => Promise<string>;
};

export function createSenders(deps: SendersDeps): Senders {
  return {
    webhook: createWebhookChannel(deps),
    channel: createChatChannel(deps),
    email: createEmailChannel({ ...deps, groupEmail: deps.groupMail ? createGroupEmailChannel({ groupMail: deps.groupMail }) : null }),
    app: createWorkspaceAppChannel(deps),
    pagerduty: createPagerDutyChannel(deps),
    opsgenie: createOpsgenieChannel(deps),
    teams: createTeamsChannel(deps),
    discord: createDiscordChannel(deps),
  };
}
