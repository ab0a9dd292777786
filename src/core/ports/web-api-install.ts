/**
 * The vendor's Web API as installing and managing the app needs it: the OAuth code
 * exchange, uninstalling, and the conversations an admin picks from.
 */
import type { RecordSkip } from '../outside-records.ts';
import type { TokenGrant } from './web-api.ts';

/** A conversation as conversations.list gives it, the fields the admin picks by. */
export type VendorConversation = { id: string; name: string; isPrivate: boolean; isArchived: boolean; isMember: boolean };

/**
 * One page of the vendor's list; `nextCursor` null when the vendor said there is no more. `skipped`:
 * the page's records not of the spec's shape, left out with their reasons (core/outside-records.ts).
 */
export type VendorConversationPage = { conversations: VendorConversation[]; skipped: RecordSkip[]; nextCursor: string | null };

export interface VendorInstallApi {
  /** oauth.v2.access with an install's code; `redirectUri` exactly as the authorize step sent it. */
  accessFromCode(code: string, redirectUri: string): Promise<TokenGrant>;
  /** apps.uninstall: the installation ends and every token of it is revoked. */
  uninstall(accessToken: string): Promise<void>;
  /** conversations.list, one page of public and private channels the bot can see. */
  listConversations(accessToken: string, page: { cursor: string | null; limit: number }): Promise<VendorConversationPage>;
}
