/** The vendor's Web API as the app's token handling needs it: rotation, exchange, identity. */
import type { RecordSkip } from '../outside-records.ts';

/** A token response (spec "Token response"), with `expires_in` as sent. */
export type TokenGrant = {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scopes: string[];
  botUserId: string;
  teamId: string;
};

/** `teamName`: the workspace's name, null when the vendor did not give one. */
export type TokenIdentity = { teamId: string; teamName: string | null; botUserId: string | null; userId: string };

export interface VendorWebApi {
  /** oauth.v2.access with grant_type=refresh_token: spends `refreshToken`. */
  refresh(refreshToken: string): Promise<TokenGrant>;
  /** oauth.v2.exchange: a long-lived token for an expiring pair; a second exchange is refused. */
  exchange(longLivedToken: string): Promise<TokenGrant>;
  /** auth.test: whom the token belongs to. */
  identify(accessToken: string): Promise<TokenIdentity>;
}

/**
 * Message metadata (chat.postMessage's `metadata`): names what a message stands for, so the app
 * can find its own messages again after a crash (app/workspace-app/message-sender.ts).
 */
export type ChatMetadata = { eventType: string; eventPayload: Record<string, string> };

/** A message's content: blocks, and the text shown where blocks are not (notifications, old clients). */
export type ChatContent = { text: string; blocks: readonly unknown[] };

/** A message as conversations.history or conversations.replies gives it, the fields the app reads. */
export type ChatHistoryMessage = { ts: string; metadata: ChatMetadata | null };

/**
 * One page; `nextCursor` null when the vendor said there is no more. `skipped`: the page's messages
 * not of the spec's shape, left out with their reasons (core/outside-records.ts).
 */
export type ChatHistoryPage = { messages: ChatHistoryMessage[]; skipped: RecordSkip[]; nextCursor: string | null };

export type ChatHistoryRequest = { cursor: string | null; limit: number /** A ts: only messages after it. */; oldest?: string };

/** The vendor's Web API as the app's messages need it. */
export interface VendorChatApi {
  /** chat.postMessage, as a reply when `threadTs` is given; the new message's ts. */
  postMessage(accessToken: string, channel: string, content: ChatContent & { threadTs?: string; metadata?: ChatMetadata }): Promise<{ ts: string }>;
  /** chat.update of one of our messages. */
  updateMessage(accessToken: string, channel: string, ts: string, content: ChatContent): Promise<void>;
  /** conversations.history with include_all_metadata: root messages, newest first. */
  history(accessToken: string, channel: string, page: ChatHistoryRequest): Promise<ChatHistoryPage>;
  /** conversations.replies with include_all_metadata: the parent, then its replies oldest first. */
  replies(accessToken: string, channel: string, ts: string, page: ChatHistoryRequest): Promise<ChatHistoryPage>;
}
