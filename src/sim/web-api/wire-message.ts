/** Messages and channels in the vendor's JSON shape, as conversations.* and chat.* return them. */
import type { Channel, ChannelBook, Message } from './channels.ts';
import type { Workspace } from './workspaces.ts';

/** Orders vendor ts values ("1700000000.000123") exactly: as numbers they would lose the last digits. */
export function compareTs(a: string, b: string): number {
  const [aSeconds = '0', aMicros = '0'] = a.split('.');
  const [bSeconds = '0', bMicros = '0'] = b.split('.');
  const bySeconds = Number(aSeconds) - Number(bSeconds);
  return bySeconds !== 0 ? bySeconds : Number(aMicros.padEnd(6, '0')) - Number(bMicros.padEnd(6, '0'));
}

/** `withMetadata`: the message's metadata too, as conversations.history and .replies give it when asked (include_all_metadata). */
export function wireMessage(message: Message, workspace: Workspace, channels: ChannelBook, appId: string, withMetadata = false): Record<string, unknown> {
  const channel = channels.get(message.channelId);
  const replies = channel && message.threadTs === message.ts ? channels.replies(channel, message.ts) : [];
  return {
    type: 'message',
    ts: message.ts,
    user: message.userId,
    ...(message.botId ? { bot_id: message.botId, app_id: appId } : {}),
    text: message.text,
    team: workspace.teamId,
    ...(message.blocks ? { blocks: message.blocks } : {}),
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(replies.length > 0
      ? {
          reply_count: replies.length,
          reply_users_count: new Set(replies.map((r) => r.userId)).size,
          latest_reply: replies[replies.length - 1]!.ts,
        }
      : {}),
    ...(message.editedTs ? { edited: { user: message.editedBy, ts: message.editedTs } } : {}),
    ...(withMetadata && message.metadata ? { metadata: { event_type: message.metadata.eventType, event_payload: message.metadata.eventPayload } } : {}),
  };
}

export function wireChannel(channel: Channel): Record<string, unknown> {
  return {
    id: channel.id,
    name: channel.name,
    name_normalized: channel.name,
    is_channel: !channel.isPrivate,
    is_group: channel.isPrivate,
    is_im: false,
    is_mpim: false,
    is_private: channel.isPrivate,
    is_archived: channel.isArchived,
    is_member: channel.botIsMember,
    created: Math.floor(channel.createdMs / 1000),
    context_team_id: channel.teamId,
  };
}
