/** chat.postMessage and chat.update: the app's messages, kept with every edit. */
import { ApiError } from './api-error.ts';
import { BLOCKS_PER_MESSAGE_MAX, MESSAGE_TEXT_MAX_CHARS, isRoot, type Channel, type MessageMetadata } from './channels.ts';
import type { MethodSpec, TokenCallContext } from './method-types.ts';
import { requiredArg, stringArg, type CallParams } from './request-params.ts';
import { wireMessage } from './wire-message.ts';

/** `blocks`: an array in a JSON body, a JSON-encoded array in a form. Null when absent. */
function blocksArg(params: CallParams): unknown[] | null {
  const raw = params.values.blocks;
  if (raw === undefined || raw === null || raw === '') return null;
  let blocks: unknown = raw;
  if (typeof raw === 'string') {
    try {
      blocks = JSON.parse(raw);
    } catch {
      throw new ApiError('invalid_blocks_format', 'blocks must be a JSON-encoded array');
    }
  }
  if (!Array.isArray(blocks)) throw new ApiError('invalid_blocks_format', 'blocks must be an array');
  if (blocks.length > BLOCKS_PER_MESSAGE_MAX) throw new ApiError('invalid_blocks', `at most ${BLOCKS_PER_MESSAGE_MAX} blocks, got ${blocks.length}`);
  if (!blocks.every((b) => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string')) {
    throw new ApiError('invalid_blocks', 'every block is an object with a string type');
  }
  return blocks;
}

/** The sim's bound on one message's metadata, as JSON: the vendor documents none, a sim needs one. */
const METADATA_MAX_CHARS = 8_000;

/**
 * `metadata`: `{event_type, event_payload}`, an object in a JSON body, JSON-encoded in a form.
 * Undefined when absent. event_type is a word of letters, digits and `_`; event_payload an object.
 */
function metadataArg(params: CallParams): MessageMetadata | undefined {
  const raw = params.values.metadata;
  if (raw === undefined || raw === null || raw === '') return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > METADATA_MAX_CHARS) throw new ApiError('invalid_metadata_format', `metadata is over ${METADATA_MAX_CHARS} characters`);
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ApiError('invalid_metadata_format', 'metadata must be a JSON-encoded object');
    }
  } else if (JSON.stringify(raw).length > METADATA_MAX_CHARS) {
    throw new ApiError('invalid_metadata_format', `metadata is over ${METADATA_MAX_CHARS} characters`);
  }
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const eventType = record?.event_type;
  const payload = record?.event_payload;
  if (typeof eventType !== 'string' || !/^[A-Za-z0-9_]{1,100}$/.test(eventType)) {
    throw new ApiError('invalid_metadata_schema', 'metadata.event_type must be a word of letters, digits and _');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new ApiError('invalid_metadata_schema', 'metadata.event_payload must be an object');
  }
  return { eventType, eventPayload: payload as Record<string, unknown> };
}

function messageContent(params: CallParams): { text: string; blocks: unknown[] | null } {
  const blocks = blocksArg(params);
  const text = stringArg(params, 'text');
  if (text === null && blocks === null) throw new ApiError('no_text', 'give text, blocks, or both');
  if (text !== null && text.length > MESSAGE_TEXT_MAX_CHARS)
    throw new ApiError('msg_too_long', `text is ${text.length} characters; at most ${MESSAGE_TEXT_MAX_CHARS}`);
  return { text: text ?? '', blocks };
}

function writableChannel(ctx: TokenCallContext): Channel {
  const channel = ctx.state.channels.find(ctx.workspace.teamId, requiredArg(ctx.params, 'channel'));
  if (!channel) throw new ApiError('channel_not_found', 'no such channel in this workspace');
  if (channel.isArchived) throw new ApiError('is_archived', 'the channel is archived');
  if (ctx.token.tokenType === 'bot' && !channel.botIsMember) throw new ApiError('not_in_channel', 'the bot is not a member of this channel');
  return channel;
}

export const chatPostMessage: MethodSpec = {
  auth: 'token',
  scope: () => 'chat:write',
  run(ctx) {
    const { state, workspace, token, nowMs } = ctx;
    const channel = writableChannel(ctx);
    const content = messageContent(ctx.params);
    const threadTs = stringArg(ctx.params, 'thread_ts');
    if (threadTs !== null) {
      const parent = state.channels.message(channel, threadTs);
      if (!parent || !isRoot(parent)) throw new ApiError('thread_not_found', 'thread_ts names no root message of this channel');
      // The parent becomes a thread's start the first time someone replies to it.
      parent.threadTs = parent.ts;
    }
    const message = state.channels.post(
      channel,
      { userId: token.userId, botId: token.tokenType === 'bot' ? workspace.botId : null, ...content, threadTs, metadata: metadataArg(ctx.params) ?? null },
      nowMs,
    );
    return { ok: true, channel: channel.id, ts: message.ts, message: wireMessage(message, workspace, state.channels, state.app.appId) };
  },
};

export const chatUpdate: MethodSpec = {
  auth: 'token',
  scope: () => 'chat:write',
  run(ctx) {
    const { state, workspace, token, nowMs } = ctx;
    const channel = writableChannel(ctx);
    const message = state.channels.message(channel, requiredArg(ctx.params, 'ts'));
    if (!message) throw new ApiError('message_not_found', 'no message with that ts in this channel');
    if (message.userId !== token.userId) throw new ApiError('cant_update_message', 'only the author of a message can update it');
    const content = messageContent(ctx.params);
    state.channels.edit(message, { ...content, editedBy: token.userId, metadata: metadataArg(ctx.params) }, nowMs);
    return { ok: true, channel: channel.id, ts: message.ts, text: message.text, message: wireMessage(message, workspace, state.channels, state.app.appId) };
  },
};
