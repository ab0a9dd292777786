/** Channels of each workspace and every message posted in them, with each message's edits and thread replies. */
import { newObjectId } from './ids.ts';

/** Bounds: a demo runs for hours and a test may post in a loop. */
export const CHANNELS_PER_WORKSPACE_MAX = 200;
/** The oldest message goes first beyond this. */
export const MESSAGES_PER_CHANNEL_MAX = 2000;
/** Earlier texts kept per message (the edit count keeps counting). */
export const EDITS_PER_MESSAGE_MAX = 20;
/** The vendor truncates text past 40,000 characters; the sim refuses it (msg_too_long) so the loss is visible. */
export const MESSAGE_TEXT_MAX_CHARS = 40_000;
/** The vendor's limit on blocks in one message. */
export const BLOCKS_PER_MESSAGE_MAX = 50;

export type Revision = { text: string; blocks: unknown[] | null; editedTs: string };

/**
 * Message metadata (chat.postMessage's `metadata` argument): kept on the message, returned by
 * conversations.history and conversations.replies only when asked (include_all_metadata), and
 * shown nowhere else: not in chat.* answers, not on the channel page.
 */
export type MessageMetadata = { eventType: string; eventPayload: Record<string, unknown> };

export type Message = {
  ts: string;
  channelId: string;
  /** Who posted it: the bot user, or a person seeded by the control API. */
  userId: string;
  botId: string | null;
  text: string;
  blocks: unknown[] | null;
  threadTs: string | null;
  metadata: MessageMetadata | null;
  /** Texts before each edit, oldest first (at most EDITS_PER_MESSAGE_MAX). */
  previous: Revision[];
  editCount: number;
  editedTs: string | null;
  editedBy: string | null;
};

export type Channel = {
  id: string;
  teamId: string;
  name: string;
  isPrivate: boolean;
  isArchived: boolean;
  /** Whether the app's bot is in it: posting elsewhere answers not_in_channel. */
  botIsMember: boolean;
  createdMs: number;
  /** In ts order. */
  messages: Message[];
};

export type NewChannel = { teamId: string; name: string; isPrivate?: boolean; isArchived?: boolean; botIsMember?: boolean };
export type NewMessage = {
  userId: string;
  botId: string | null;
  text: string;
  blocks: unknown[] | null;
  threadTs: string | null;
  metadata?: MessageMetadata | null;
};

export type ChannelBook = {
  /** Null when the workspace has CHANNELS_PER_WORKSPACE_MAX channels or the name is taken. */
  add(fields: NewChannel, nowMs: number): Channel | null;
  get(channelId: string): Channel | undefined;
  /** By id, or by name with or without a leading #. */
  find(teamId: string, idOrName: string): Channel | undefined;
  ofTeam(teamId: string): Channel[];
  post(channel: Channel, fields: NewMessage, nowMs: number): Message;
  message(channel: Channel, ts: string): Message | undefined;
  /** `metadata` replaces the message's when given; absent keeps it. */
  edit(message: Message, fields: { text: string; blocks: unknown[] | null; editedBy: string; metadata?: MessageMetadata | null }, nowMs: number): Message;
  /**
   * Deletes a message as a member or the workspace's retention would: a root goes with its
   * replies. Says how many messages went (0: no message with that ts).
   */
  remove(channel: Channel, ts: string): number;
  /** Root messages: the ones with no thread_ts, or that start their thread. */
  roots(channel: Channel): Message[];
  replies(channel: Channel, threadTs: string): Message[];
};

/** A vendor ts: seconds, a dot, six digits; strictly increasing within the sim, so it identifies a message. */
function makeTsClock(): (nowMs: number) => string {
  let lastMicros = 0;
  return (nowMs) => {
    lastMicros = Math.max(lastMicros + 1, Math.floor(nowMs) * 1000);
    return `${Math.floor(lastMicros / 1_000_000)}.${String(lastMicros % 1_000_000).padStart(6, '0')}`;
  };
}

export const isRoot = (message: Message): boolean => message.threadTs === null || message.threadTs === message.ts;

export function createChannelBook(): ChannelBook {
  const channels = new Map<string, Channel>();
  const byTeam = new Map<string, Channel[]>();
  const nextTs = makeTsClock();

  return {
    add(fields, nowMs) {
      const list = byTeam.get(fields.teamId) ?? [];
      const name = fields.name.replace(/^#/, '');
      if (list.length >= CHANNELS_PER_WORKSPACE_MAX || list.some((c) => c.name === name)) return null;
      const channel: Channel = {
        id: newObjectId(fields.isPrivate ? 'G' : 'C'),
        teamId: fields.teamId,
        name,
        isPrivate: fields.isPrivate ?? false,
        isArchived: fields.isArchived ?? false,
        botIsMember: fields.botIsMember ?? true,
        createdMs: nowMs,
        messages: [],
      };
      channels.set(channel.id, channel);
      list.push(channel);
      byTeam.set(fields.teamId, list);
      return channel;
    },
    get: (channelId) => channels.get(channelId),
    find(teamId, idOrName) {
      const byId = channels.get(idOrName);
      if (byId) return byId.teamId === teamId ? byId : undefined;
      const name = idOrName.replace(/^#/, '');
      return (byTeam.get(teamId) ?? []).find((c) => c.name === name);
    },
    ofTeam: (teamId) => [...(byTeam.get(teamId) ?? [])],
    post(channel, fields, nowMs) {
      const message: Message = {
        ts: nextTs(nowMs),
        channelId: channel.id,
        ...fields,
        metadata: fields.metadata ?? null,
        previous: [],
        editCount: 0,
        editedTs: null,
        editedBy: null,
      };
      channel.messages.push(message);
      if (channel.messages.length > MESSAGES_PER_CHANNEL_MAX) channel.messages.splice(0, channel.messages.length - MESSAGES_PER_CHANNEL_MAX);
      return message;
    },
    message: (channel, ts) => channel.messages.find((m) => m.ts === ts),
    edit(message, fields, nowMs) {
      message.previous.push({ text: message.text, blocks: message.blocks, editedTs: message.editedTs ?? message.ts });
      if (message.previous.length > EDITS_PER_MESSAGE_MAX) message.previous.splice(0, message.previous.length - EDITS_PER_MESSAGE_MAX);
      message.text = fields.text;
      message.blocks = fields.blocks;
      message.editCount += 1;
      message.editedTs = nextTs(nowMs);
      message.editedBy = fields.editedBy;
      if (fields.metadata !== undefined) message.metadata = fields.metadata;
      return message;
    },
    remove(channel, ts) {
      const before = channel.messages.length;
      channel.messages = channel.messages.filter((m) => m.ts !== ts && m.threadTs !== ts);
      return before - channel.messages.length;
    },
    roots: (channel) => channel.messages.filter(isRoot),
    replies: (channel, threadTs) => channel.messages.filter((m) => m.threadTs === threadTs && m.ts !== threadTs),
  };
}
