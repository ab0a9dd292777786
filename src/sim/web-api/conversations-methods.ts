/** conversations.list, conversations.history and conversations.replies: the cursor-paginated methods the app reads. */
import { ApiError } from './api-error.ts';
import { isRoot, type Channel, type Message } from './channels.ts';
import type { MethodSpec, TokenCallContext } from './method-types.ts';
import { decodeCursor, effectiveLimit, encodeCursor, pageAfter, responseMetadata } from './pagination.ts';
import { booleanArg, requiredArg, stringArg } from './request-params.ts';
import { compareTs, wireChannel, wireMessage } from './wire-message.ts';

/** The page size: `limit` adjusted, then the sim's short-page setting ("fewer results than limit can be returned"). */
function pageSize(ctx: TokenCallContext): number {
  const limit = effectiveLimit(ctx.params.values.limit);
  return ctx.state.settings.maxPageItems === null ? limit : Math.min(limit, ctx.state.settings.maxPageItems);
}

/** Where the page starts: the cursor's position, after checking it belongs to this list and is fresh. */
function cursorPosition(ctx: TokenCallContext, scope: string): string | null {
  const cursor = stringArg(ctx.params, 'cursor');
  if (cursor === null) return null;
  return decodeCursor(cursor, { method: ctx.method, scope, nowMs: ctx.nowMs, lifetimeMs: ctx.state.settings.cursorLifetimeMs });
}

const nextCursor = (ctx: TokenCallContext, scope: string, after: string | null): string | null =>
  after === null ? null : encodeCursor({ method: ctx.method, scope, after, issuedMs: ctx.nowMs });

const TYPES = ['public_channel', 'private_channel', 'mpim', 'im'] as const;

function requestedTypes(ctx: TokenCallContext): Set<string> {
  const types = (stringArg(ctx.params, 'types') ?? 'public_channel')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const unknown = types.find((t) => !(TYPES as readonly string[]).includes(t));
  if (unknown !== undefined) throw new ApiError('invalid_types', `unknown type ${unknown}; use ${TYPES.join(', ')}`);
  return new Set(types);
}

export const conversationsList: MethodSpec = {
  auth: 'token',
  scope: (ctx) => (requestedTypes(ctx).has('private_channel') && !requestedTypes(ctx).has('public_channel') ? 'groups:read' : 'channels:read'),
  run(ctx) {
    const types = requestedTypes(ctx);
    const excludeArchived = booleanArg(ctx.params, 'exclude_archived');
    const all = ctx.state.channels.ofTeam(ctx.workspace.teamId);
    // A position is the channel's place in creation order, which never changes (channels are not deleted).
    const positioned = all.map((channel, index) => ({ channel, position: String(index) }));
    const visible = positioned.filter(({ channel }) => {
      if (excludeArchived && channel.isArchived) return false;
      if (channel.isPrivate) return types.has('private_channel') && channel.botIsMember;
      return types.has('public_channel');
    });
    const scope = `${ctx.workspace.teamId}:${[...types].sort().join(',')}:${excludeArchived}`;
    const page = pageAfter(
      visible,
      (v) => v.position,
      cursorPosition(ctx, scope),
      pageSize(ctx),
      (after, v) => Number(v.position) > Number(after),
    );
    return {
      ok: true,
      channels: page.items.map((v) => wireChannel(v.channel)),
      ...responseMetadata(nextCursor(ctx, scope, page.nextAfter), ctx.state.settings.endCursor),
    };
  },
};

/** oldest/latest bound a history read by ts; `inclusive` keeps messages exactly at the bounds. */
function inWindow(ctx: TokenCallContext): (message: Message) => boolean {
  const oldest = stringArg(ctx.params, 'oldest');
  const latest = stringArg(ctx.params, 'latest');
  const inclusive = booleanArg(ctx.params, 'inclusive');
  for (const [name, value] of [
    ['oldest', oldest],
    ['latest', latest],
  ] as const) {
    if (value !== null && !/^\d{1,12}(\.\d{1,6})?$/.test(value)) throw new ApiError(`invalid_ts_${name}`, `${name} must be a ts such as 1700000000.000100`);
  }
  return (message) => {
    if (oldest !== null && (inclusive ? compareTs(message.ts, oldest) < 0 : compareTs(message.ts, oldest) <= 0)) return false;
    if (latest !== null && (inclusive ? compareTs(message.ts, latest) > 0 : compareTs(message.ts, latest) >= 0)) return false;
    return true;
  };
}

/** history:read of the channel's kind: a private channel's history needs groups:history. */
function historyScope(ctx: TokenCallContext): string {
  const channel = ctx.state.channels.find(ctx.workspace.teamId, stringArg(ctx.params, 'channel') ?? '');
  return channel?.isPrivate ? 'groups:history' : 'channels:history';
}

/** The channel whose messages are read: it must exist, and a bot must be in it. */
function readableChannel(ctx: TokenCallContext): Channel {
  const channel = ctx.state.channels.find(ctx.workspace.teamId, requiredArg(ctx.params, 'channel'));
  if (!channel) throw new ApiError('channel_not_found', 'no such channel in this workspace');
  if (ctx.token.tokenType === 'bot' && !channel.botIsMember) throw new ApiError('not_in_channel', 'the bot is not a member of this channel');
  return channel;
}

export const conversationsHistory: MethodSpec = {
  auth: 'token',
  scope: historyScope,
  run(ctx) {
    const { state, workspace } = ctx;
    const channel = readableChannel(ctx);
    const window = inWindow(ctx);
    // Newest first, root messages only (replies are read with conversations.replies), as the vendor answers.
    const messages = state.channels.roots(channel).filter(window).reverse();
    const scope = `${channel.id}:${stringArg(ctx.params, 'oldest') ?? ''}:${stringArg(ctx.params, 'latest') ?? ''}`;
    const page = pageAfter(
      messages,
      (m) => m.ts,
      cursorPosition(ctx, scope),
      pageSize(ctx),
      (after, m) => compareTs(m.ts, after) < 0,
    );
    const withMetadata = booleanArg(ctx.params, 'include_all_metadata');
    return {
      ok: true,
      messages: page.items.map((m) => wireMessage(m, workspace, state.channels, state.app.appId, withMetadata)),
      has_more: page.nextAfter !== null,
      pin_count: 0,
      ...responseMetadata(nextCursor(ctx, scope, page.nextAfter), state.settings.endCursor),
    };
  },
};

/**
 * conversations.replies: a thread, its parent first, then the replies oldest first, paginated
 * like history (the cursor names the last ts given). A ts of a message with no replies gives that
 * message alone; a ts that is no message of the channel answers thread_not_found.
 */
export const conversationsReplies: MethodSpec = {
  auth: 'token',
  scope: historyScope,
  run(ctx) {
    const { state, workspace } = ctx;
    const channel = readableChannel(ctx);
    const ts = requiredArg(ctx.params, 'ts');
    const parent = state.channels.message(channel, ts);
    if (!parent || !isRoot(parent)) throw new ApiError('thread_not_found', 'ts names no root message of this channel');
    const window = inWindow(ctx);
    const thread = [parent, ...state.channels.replies(channel, parent.ts)].filter(window);
    const scope = `${channel.id}:${parent.ts}:${stringArg(ctx.params, 'oldest') ?? ''}:${stringArg(ctx.params, 'latest') ?? ''}`;
    const page = pageAfter(
      thread,
      (m) => m.ts,
      cursorPosition(ctx, scope),
      pageSize(ctx),
      (after, m) => compareTs(m.ts, after) > 0,
    );
    const withMetadata = booleanArg(ctx.params, 'include_all_metadata');
    return {
      ok: true,
      messages: page.items.map((m) => wireMessage(m, workspace, state.channels, state.app.appId, withMetadata)),
      has_more: page.nextAfter !== null,
      ...responseMetadata(nextCursor(ctx, scope, page.nextAfter), state.settings.endCursor),
    };
  },
};
