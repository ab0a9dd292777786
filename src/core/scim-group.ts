/**
 * Group subscriptions: an email subscription whose recipients are a SCIM group's
 * members. The subscription keeps `scim-group:<id>` as its target, so every existing path
 * (fanout, outbox, filters) treats it as the one subscription it is.
 */
import { z } from 'zod';
import { sha256Hex } from './content-hash.ts';
import { webhookMessageId } from './fanout.ts';
import type { DirectoryUser } from './scim-resources.ts';
import { subscriptionFiltersSchema, timeZoneSchema } from './subscription.ts';

const TARGET_PREFIX = 'scim-group:';

export function groupTarget(groupId: string): string {
  return `${TARGET_PREFIX}${groupId}`;
}

/** The group id of a group subscription's target, or null for an ordinary one. */
export function groupIdOfTarget(target: string): string | null {
  return target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : null;
}

/** A member as the last sync stored it. */
export type GroupMember = DirectoryUser & { muted: boolean };

type GroupChange = 'added' | 'removed: left group' | 'removed: deactivated' | 'removed: group deleted' | 'refused: email not one address';

export type GroupLogChange = GroupChange | 'sync failed' | 'record skipped';

export type MemberChange = { userId: string; email: string | null; displayName: string; change: GroupChange };

/** Who receives: active members with a primary email, not muted. */
export function receives(member: Pick<GroupMember, 'active' | 'email' | 'muted'>): boolean {
  return member.active && member.email !== null && !member.muted;
}

/**
 * What changed between the last good member list and what the directory says now. `current` is
 * null when the group itself is gone. `lookup` has what is known of users no longer in the group
 * (undefined: not found in the directory, which the spec's DELETE never does, so it counts as
 * deactivated).
 */
export function diffMembers(
  previous: readonly DirectoryUser[],
  current: readonly DirectoryUser[] | null,
  lookup: (userId: string) => DirectoryUser | undefined,
): MemberChange[] {
  const changes: MemberChange[] = [];
  const entry = (u: DirectoryUser, change: GroupChange): MemberChange => ({ userId: u.id, email: u.email, displayName: u.displayName, change });
  const before = new Map(previous.map((u) => [u.id, u]));
  if (current === null) return previous.filter((u) => u.active).map((u) => entry(u, 'removed: group deleted'));
  const now = new Map(current.map((u) => [u.id, u]));
  for (const user of current) {
    const was = before.get(user.id);
    if (user.active && (!was || !was.active)) changes.push(entry(user, 'added'));
    else if (!user.active && was?.active) changes.push(entry(user, 'removed: deactivated'));
    // Said once: when the member comes with such an email, or their good one turns into one. The
    // stored email is then null, so the next syncs see nothing new.
    if (user.refusedEmail !== undefined && (!was || was.email !== null))
      changes.push({ ...entry(user, 'refused: email not one address'), email: user.refusedEmail });
  }
  for (const was of previous) {
    if (now.has(was.id) || !was.active) continue;
    const found = lookup(was.id);
    changes.push(entry(found ?? was, found?.active ? 'removed: left group' : 'removed: deactivated'));
  }
  return changes.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
}

/**
 * What a good sync changes in the stored member list: the members new or changed since `previous`
 * (to write) and the ids no longer on the list (to delete). An unchanged member costs no write: a
 * 15,000-member group synced every 5 minutes would otherwise rewrite 30,000 rows each time.
 */
export function memberListChanges(previous: readonly DirectoryUser[], current: readonly DirectoryUser[]): { upserts: DirectoryUser[]; removedIds: string[] } {
  const before = new Map(previous.map((u) => [u.id, u]));
  const upserts = current.filter((u) => {
    const was = before.get(u.id);
    return !was || was.email !== u.email || was.active !== u.active || was.timeZone !== u.timeZone || was.displayName !== u.displayName;
  });
  const now = new Set(current.map((u) => u.id));
  return { upserts, removedIds: previous.filter((u) => !now.has(u.id)).map((u) => u.id) };
}

/**
 * The key a delivery's member sends are stored under: the delivery key's webhook-id form
 * (`msg_…`), as every row already stored was written, so a delivery under way when this process
 * was upgraded still mails only the members it has not mailed yet, under the same Message-IDs.
 */
export function memberSendsKeyOf(deliveryKey: string): Promise<string> {
  return webhookMessageId(deliveryKey);
}

/**
 * The Message-ID of one member's mail of one delivery: the same on every send of it, so the copy
 * a crash makes us send again (the mails in flight at the kill) is one the member's client can
 * drop. Hashed: the delivery key and the directory's user id need not be Message-ID syntax.
 */
export async function memberMessageId(deliveryKey: string, userId: string, domain: string): Promise<string> {
  const digest = await sha256Hex(`${deliveryKey}\n${userId}`);
  return `<group.${digest.slice(0, 40)}@${domain}>`;
}

/** Ids of former active members the sync needs the directory's word on (left the group, or deactivated). */
export function departedMembers(previous: readonly DirectoryUser[], currentIds: ReadonlySet<string>): string[] {
  return previous.filter((u) => u.active && !currentIds.has(u.id)).map((u) => u.id);
}

export const SCIM_PAGE_SIZE = 1000;

/**
 * How to read the users a group's members are: list the directory a page of SCIM_PAGE_SIZE at a
 * time, or GET each one. After the first list page (which also gave totalResults), the cheaper in
 * requests wins; a tie goes to listing, whose pages draw only on the org-wide reads bucket while
 * each GET also draws on the 300-a-minute GET /Users/<id> row.
 */
export function chooseUserReads(input: { unreadMembers: number; totalUsers: number; listedSoFar: number }): 'list' | 'get' {
  const remainingPages = Math.ceil(Math.max(0, input.totalUsers - input.listedSoFar) / SCIM_PAGE_SIZE);
  return input.unreadMembers < remainingPages ? 'get' : 'list';
}

/** The body of `POST /api/subscriptions` for a group: `group` is the group's SCIM id or exact display name. */
const GROUP_REF_MAX_CHARS = 200;

export const createGroupSubscriptionSchema = z.strictObject({
  channel: z.literal('email'),
  group: z
    .string({ error: 'group must be a string: the SCIM id or exact display name of a directory group' })
    .trim()
    .min(1, 'group must not be empty')
    .max(GROUP_REF_MAX_CHARS, `group must be at most ${GROUP_REF_MAX_CHARS} characters`),
  filters: subscriptionFiltersSchema.optional(),
  timezone: timeZoneSchema.optional(),
});

/** What `PATCH /api/subscriptions/:id` may change on a group subscription: the group stays. */
export const updateGroupSubscriptionSchema = z.strictObject({
  filters: subscriptionFiltersSchema.optional(),
  timezone: timeZoneSchema.optional(),
});
