/**
 * Where an app subscription may point: a conversation of an active installation that
 * the app can post to, read with the installation's own token through conversations.list, walked
 * with the vendor's cursors until the vendor says the list ends.
 */
import type { VendorConversation } from '../../core/ports.ts';
import { CONVERSATIONS_PAGE_MAX, type AppInstalls, type ConversationsPosition } from './installs.ts';

/**
 * Our pages read at most while looking for one conversation: 25 of 200 is 5,000 conversations, more
 * than a workspace's bot is a member of; past that the admin is told, not left waiting.
 */
export const CONVERSATION_SEARCH_PAGES_MAX = 25;

type ConversationCheck =
  | { kind: 'postable'; conversation: VendorConversation }
  | { kind: 'not_member'; conversation: VendorConversation }
  | { kind: 'archived'; conversation: VendorConversation }
  | { kind: 'not_found' }
  | { kind: 'too_many' };

/**
 * Reads the installation's conversations a page at a time, to the vendor's end of list (our page's
 * `next` is null only when the vendor said so, never after a short page), at most
 * CONVERSATION_SEARCH_PAGES_MAX pages. `visit` sees each page and may stop the walk by returning
 * true. Throws InstallError when the installation is unknown or unavailable.
 */
export async function walkConversations(
  installs: AppInstalls,
  installationId: string,
  visit: (conversations: VendorConversation[]) => boolean,
): Promise<'stopped' | 'ended' | 'too_many'> {
  let from: ConversationsPosition | null = null;
  for (let page = 0; page < CONVERSATION_SEARCH_PAGES_MAX; page++) {
    const answer = await installs.conversations(installationId, from, CONVERSATIONS_PAGE_MAX);
    if (visit(answer.conversations)) return 'stopped';
    if (answer.next === null) return 'ended';
    from = answer.next;
  }
  return 'too_many';
}

/** Looks for `conversationId` among the installation's conversations. Throws InstallError when the installation is unknown or unavailable. */
export async function checkAppConversation(installs: AppInstalls, installationId: string, conversationId: string): Promise<ConversationCheck> {
  let conversation: VendorConversation | undefined;
  const walk = await walkConversations(installs, installationId, (page) => {
    conversation = page.find((c) => c.id === conversationId);
    return conversation !== undefined;
  });
  if (conversation) {
    if (conversation.isArchived) return { kind: 'archived', conversation };
    return conversation.isMember ? { kind: 'postable', conversation } : { kind: 'not_member', conversation };
  }
  return walk === 'ended' ? { kind: 'not_found' } : { kind: 'too_many' };
}
