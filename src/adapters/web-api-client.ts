/**
 * The vendor's Web API over fetch (Web-standard: runs on Node and Workers): oauth.v2.access with
 * the refresh grant, oauth.v2.exchange, auth.test, the conversations the admin picks from, and the
 * app's messages (chat.postMessage, chat.update, conversations.history and .replies), form-encoded
 * as the spec writes them. Every call has a timeout and reads at most MAX_ANSWER_BYTES; the
 * vendor's error codes come back as WebApiError codes, a 429 with its Retry-After.
 */
import { z } from 'zod';
import { WebApiError } from '../core/errors.ts';
import type {
  ChatHistoryMessage,
  ChatHistoryPage,
  ChatHistoryRequest,
  TokenGrant,
  TokenIdentity,
  VendorChatApi,
  VendorInstallApi,
  VendorWebApi,
} from '../core/ports.ts';
import { firstIssue, readRecords } from '../core/outside-records.ts';
import { parseRetryAfterMs } from '../core/retry-after.ts';
import { wellFormed, wellFormedKey, wellFormedPrefix } from '../core/well-formed-text.ts';
import { createTextPrefix, readCappedBody } from './capped-body.ts';

// A token response is under 1 KB; a history page of 200 messages with blocks is some 200 KB.
// 1 MB leaves room for that and a verbose error page, and no more.
const MAX_ANSWER_BYTES = 1_048_576;
export const WEB_API_TIMEOUT_MS = 10_000;

export type WebApiClientOptions = {
  /** APP_API_URL: `https://slack.com`, or the simulated Web API. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

// The vendor's text is made well formed as it is read, and its ids and tokens (keys, which a repair
// could merge) are refused when they hold half a surrogate pair: core/well-formed-text.ts.
const errorAnswer = z.object({ ok: z.literal(false), error: z.string().min(1).max(200).transform(wellFormed) });
const tokenAnswer = z.object({
  ok: z.literal(true),
  access_token: wellFormedKey().min(1),
  refresh_token: wellFormedKey().min(1),
  expires_in: z.number().int().positive(),
  scope: z.string().default('').transform(wellFormed),
  bot_user_id: wellFormedKey().min(1),
  team: z.object({ id: wellFormedKey().min(1) }),
});
const okAnswer = z.object({ ok: z.literal(true) });
const pageMetadata = z.object({ next_cursor: wellFormedKey().max(2000).nullish() }).optional();

/** "Empty string, null or absent next_cursor means no further results" (spec, Pagination rules). */
function nextCursorOf(answer: { response_metadata?: z.infer<typeof pageMetadata> }): string | null {
  return answer.response_metadata?.next_cursor || null;
}

// A list's envelope (ok, the list itself, its cursor) is refused as a whole; each record of the list
// is read on its own (core/outside-records.ts): one malformed record is skipped with its reason, not the page.
const conversationRecord = z.object({
  id: wellFormedKey().min(1).max(100),
  name: z.string().max(200).default('').transform(wellFormed),
  is_private: z.boolean().default(false),
  is_archived: z.boolean().default(false),
  is_member: z.boolean().default(false),
});
const conversationsAnswer = z.object({ ok: z.literal(true), channels: z.array(z.unknown()), response_metadata: pageMetadata });
const postedAnswer = z.object({ ok: z.literal(true), ts: wellFormedKey().min(1).max(40) });
const metadataAnswer = z.object({ event_type: z.string().max(200), event_payload: z.record(z.string(), z.unknown()) });
// Only what the app reads of a message: its ts, and the metadata that says whether it is ours.
// A field it ignores (thread_ts, bot_id, text...) must not make a message unreadable: after a lost
// answer the retry would miss our own root in the history and post a second one.
const messageRecord = z.object({
  ts: wellFormedKey().min(1).max(40),
  metadata: metadataAnswer.optional(),
});
const historyAnswer = z.object({ ok: z.literal(true), messages: z.array(z.unknown()), response_metadata: pageMetadata });

function toHistoryPage(answer: z.infer<typeof historyAnswer>): ChatHistoryPage {
  // A message is named by its ts, the only id it has.
  const { records, skipped } = readRecords(messageRecord, answer.messages, 'ts');
  return {
    messages: records.map(
      (m): ChatHistoryMessage => ({
        ts: m.ts,
        // Only string values: what we put there is strings, anything else is not ours.
        metadata: m.metadata
          ? {
              eventType: m.metadata.event_type,
              eventPayload: Object.fromEntries(Object.entries(m.metadata.event_payload).filter((e): e is [string, string] => typeof e[1] === 'string')),
            }
          : null,
      }),
    ),
    skipped,
    nextCursor: nextCursorOf(answer),
  };
}

/** Longest workspace name kept: the vendor's names are short; a longer one is cut, not refused. */
export const TEAM_NAME_MAX_CHARS = 200;

const identityAnswer = z.object({
  ok: z.literal(true),
  team_id: wellFormedKey().min(1),
  // The workspace's name: shown to the admin, never relied on, so an odd one is dropped, not refused.
  team: z
    .string()
    .optional()
    .catch(undefined)
    .transform((name) => (name?.trim() ? wellFormedPrefix(name.trim(), TEAM_NAME_MAX_CHARS) : null)),
  user_id: wellFormedKey().min(1),
  bot_id: wellFormedKey().optional(),
});

function toGrant(answer: z.infer<typeof tokenAnswer>): TokenGrant {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresInSeconds: answer.expires_in,
    scopes: answer.scope.split(',').filter((s) => s !== ''),
    botUserId: answer.bot_user_id,
    teamId: answer.team.id,
  };
}

export function createWebApiClient(options: WebApiClientOptions): VendorWebApi & VendorInstallApi & VendorChatApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? WEB_API_TIMEOUT_MS;
  const doFetch = options.fetch ?? fetch;

  /** One form-encoded POST; the parsed JSON of an `ok: true` answer, or a WebApiError. */
  async function call(method: string, fields: Record<string, string>, bearer?: string): Promise<unknown> {
    let response: Response;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      response = await doFetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
        body: new URLSearchParams(fields).toString(),
        signal,
        // 'error' is refused by workerd: a redirect is read as an answer below and refused there.
        redirect: 'manual',
      });
    } catch (cause) {
      throw new WebApiError(method, signal.aborted ? 'timeout' : 'network', true, { cause });
    }
    const text = createTextPrefix(MAX_ANSWER_BYTES);
    let cut: boolean;
    try {
      ({ cut } = await readCappedBody(response.body, MAX_ANSWER_BYTES, text.add));
    } catch (cause) {
      throw new WebApiError(method, signal.aborted ? 'timeout' : 'network', true, { cause });
    }
    if (response.status === 429) {
      // The vendor answers a rate limit with 429 and Retry-After (spec, "Rate limit exceeded").
      const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), Date.now());
      throw new WebApiError(method, 'ratelimited', true, { retryAfterMs });
    }
    if (response.status >= 500) throw new WebApiError(method, `http_${response.status}`, true);
    // A redirect is no answer of the Web API's: followed, it would carry the token elsewhere.
    if (response.status >= 300 && response.status < 400) throw new WebApiError(method, `http_${response.status}`, false, { detail: 'redirect refused' });
    if (cut) throw new WebApiError(method, 'too_large', false, { detail: `answer over ${MAX_ANSWER_BYTES} bytes` });
    let json: unknown;
    try {
      json = JSON.parse(text.text);
    } catch (cause) {
      throw new WebApiError(method, response.ok ? 'malformed' : `http_${response.status}`, false, { cause, detail: 'not JSON' });
    }
    const failed = errorAnswer.safeParse(json);
    // The vendor's own refusals: trying the same call again gives the same answer, except a rate limit.
    if (failed.success) throw new WebApiError(method, failed.data.error, failed.data.error === 'ratelimited');
    if (!response.ok) throw new WebApiError(method, `http_${response.status}`, false);
    return json;
  }

  function parse<T>(method: string, schema: z.ZodType<T>, json: unknown): T {
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new WebApiError(method, 'malformed', false, { detail: firstIssue(parsed.error, '(body)') });
    return parsed.data;
  }

  /** One page of a conversation's history or a thread, with our metadata: the two read alike. */
  async function messagePage(
    method: 'conversations.history' | 'conversations.replies',
    accessToken: string,
    where: Record<string, string>,
    page: ChatHistoryRequest,
  ): Promise<ChatHistoryPage> {
    const fields: Record<string, string> = { ...where, limit: String(page.limit), include_all_metadata: 'true' };
    if (page.cursor !== null) fields.cursor = page.cursor;
    if (page.oldest !== undefined) fields.oldest = page.oldest;
    return toHistoryPage(parse(method, historyAnswer, await call(method, fields, accessToken)));
  }

  const credentials = { client_id: options.clientId, client_secret: options.clientSecret };
  return {
    async refresh(refreshToken) {
      const json = await call('oauth.v2.access', { ...credentials, grant_type: 'refresh_token', refresh_token: refreshToken });
      return toGrant(parse('oauth.v2.access', tokenAnswer, json));
    },
    async exchange(longLivedToken) {
      const json = await call('oauth.v2.exchange', { ...credentials, token: longLivedToken });
      return toGrant(parse('oauth.v2.exchange', tokenAnswer, json));
    },
    async identify(accessToken): Promise<TokenIdentity> {
      const answer = parse('auth.test', identityAnswer, await call('auth.test', {}, accessToken));
      return { teamId: answer.team_id, teamName: answer.team, userId: answer.user_id, botUserId: answer.bot_id === undefined ? null : answer.user_id };
    },
    async accessFromCode(code, redirectUri) {
      const json = await call('oauth.v2.access', { ...credentials, grant_type: 'authorization_code', code, redirect_uri: redirectUri });
      return toGrant(parse('oauth.v2.access', tokenAnswer, json));
    },
    async uninstall(accessToken) {
      parse('apps.uninstall', okAnswer, await call('apps.uninstall', credentials, accessToken));
    },
    async listConversations(accessToken, page) {
      const fields: Record<string, string> = { types: 'public_channel,private_channel', exclude_archived: 'true', limit: String(page.limit) };
      if (page.cursor !== null) fields.cursor = page.cursor;
      const answer = parse('conversations.list', conversationsAnswer, await call('conversations.list', fields, accessToken));
      const { records, skipped } = readRecords(conversationRecord, answer.channels, 'id');
      return {
        conversations: records.map((c) => ({ id: c.id, name: c.name, isPrivate: c.is_private, isArchived: c.is_archived, isMember: c.is_member })),
        skipped,
        nextCursor: nextCursorOf(answer),
      };
    },
    async postMessage(accessToken, channel, content) {
      const fields: Record<string, string> = { channel, text: content.text, blocks: JSON.stringify(content.blocks) };
      if (content.threadTs !== undefined) fields.thread_ts = content.threadTs;
      if (content.metadata) fields.metadata = JSON.stringify({ event_type: content.metadata.eventType, event_payload: content.metadata.eventPayload });
      return { ts: parse('chat.postMessage', postedAnswer, await call('chat.postMessage', fields, accessToken)).ts };
    },
    async updateMessage(accessToken, channel, ts, content) {
      const fields = { channel, ts, text: content.text, blocks: JSON.stringify(content.blocks) };
      parse('chat.update', postedAnswer, await call('chat.update', fields, accessToken));
    },
    history: (accessToken, channel, page) => messagePage('conversations.history', accessToken, { channel }, page),
    replies: (accessToken, channel, ts, page) => messagePage('conversations.replies', accessToken, { channel, ts }, page),
  };
}
