/**
 * What a group subscription shows on every face: its members as last synced, by user id, and its
 * audit list, newest first, one page at a time (`GET /api/subscriptions/:id/members` and `/audit`,
 * and the admin page of the group). Each face names its list; the cursor's list name carries the
 * subscription too, so a cursor of one group's list is refused by another's.
 */
import type { CursorCodec } from '../core/cursor.ts';
import type { GroupDirectoryStore, GroupLogEntry } from '../core/ports/scim-directory.ts';
import type { GroupMember } from '../core/scim-group.ts';
import { cursorPage, isText, isWhole, type Page } from './cursor-page.ts';
import type { ListRequest } from './subscription-lists.ts';

export type GroupReadDeps = { store: Pick<GroupDirectoryStore, 'members' | 'log'>; cursors: CursorCodec };

/** The group's members after the request's cursor; an invalid_cursor ApiError for a cursor of another list. */
export function groupMemberPage({ store, cursors }: GroupReadDeps, subscriptionId: string, request: ListRequest): Promise<Page<GroupMember>> {
  return cursorPage<GroupMember, string>(
    cursors,
    request,
    `${request.list} ${subscriptionId}`,
    (after, limit) => store.members(subscriptionId, after, limit),
    (member) => member.id,
    { accepts: isText },
  );
}

/** The group's audit list, newest first, before the request's cursor; an invalid_cursor ApiError for a cursor of another list. */
export function groupAuditPage({ store, cursors }: GroupReadDeps, subscriptionId: string, request: ListRequest): Promise<Page<GroupLogEntry>> {
  return cursorPage<GroupLogEntry, number>(
    cursors,
    request,
    `${request.list} ${subscriptionId}`,
    (before, limit) => store.log(subscriptionId, before, limit),
    (entry) => entry.id,
    { accepts: isWhole },
  );
}
