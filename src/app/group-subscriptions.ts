/**
 * Group subscriptions: a request to subscribe `{channel: "email", group}` is
 * checked here, its group resolved in the directory (by SCIM id or exact display name), and the
 * subscription created, linked and synced once so its members show at once.
 */
import type { GroupSync } from './group-sync.ts';
import type { GroupMail } from './group-mail.ts';
import { ApiError } from '../core/errors.ts';
import type { StoredSubscription } from '../core/ports.ts';
import type { GroupDirectoryStore, ScimDirectory } from '../core/ports/scim-directory.ts';
import { createGroupSubscriptionSchema, groupIdOfTarget, groupTarget, updateGroupSubscriptionSchema } from '../core/scim-group.ts';
import { DEFAULT_TIME_ZONE, type SubscriptionFilters } from '../core/subscription.ts';
import type { SubscriptionService } from './subscriptions.ts';
import { parseRequest } from '../core/parse-request.ts';

/** Refuses filters naming a service or a source statuswatch does not know (subscription-requests.ts). */
export type KnownFiltersCheck = (filters: SubscriptionFilters | undefined) => Promise<void>;

/** What group subscriptions need; absent, a `group` is refused as not configured. */
export type GroupDeps = {
  store: GroupDirectoryStore;
  sync: GroupSync;
  /** Null while SCIM_TOKEN is unset. */
  directory: ScimDirectory | null;
  mail: GroupMail | null;
  /** SCIM_URL, shown on the admin page. */
  scimUrl: string;
};

/** Whether a request body asks for a group subscription: an email subscription naming `group`. */
export function isGroupRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'group' in body && (body as { channel?: unknown }).channel === 'email';
}

export function isGroupSubscription(subscription: Pick<StoredSubscription, 'target'>): boolean {
  return groupIdOfTarget(subscription.target) !== null;
}

/** What creating and changing a group subscription take: the services the HTTP app also holds. */
export type GroupSubscriptionDeps = { subscriptions: SubscriptionService; groups?: GroupDeps };

export function groupDepsOf(deps: Pick<GroupSubscriptionDeps, 'groups'>): GroupDeps {
  if (!deps.groups) throw new ApiError(409, 'directory_disabled', 'group subscriptions need the SCIM directory: set SCIM_TOKEN (and SCIM_URL)');
  return deps.groups;
}

export async function createGroupSubscription(deps: GroupSubscriptionDeps, checkFilters: KnownFiltersCheck, body: unknown): Promise<StoredSubscription> {
  const input = parseRequest(createGroupSubscriptionSchema, body);
  await checkFilters(input.filters);
  const groups = groupDepsOf(deps);
  const group = await groups.sync.resolveGroup(input.group);
  const { subscription } = await deps.subscriptions.create({
    channel: 'email',
    target: groupTarget(group.id),
    filters: { ...input.filters, monitor: input.filters?.monitor ?? true },
    timeZone: input.timezone ?? DEFAULT_TIME_ZONE,
  });
  await groups.store.linkGroup({ subscriptionId: subscription.id, groupId: group.id, groupName: group.displayName });
  // The first sync fills the member list; if it fails, the link says so and the next round retries.
  await groups.sync.syncGroup(subscription.id);
  return subscription;
}

export async function updateGroupSubscription(
  deps: GroupSubscriptionDeps,
  checkFilters: KnownFiltersCheck,
  current: StoredSubscription,
  body: unknown,
): Promise<StoredSubscription> {
  const patch = parseRequest(updateGroupSubscriptionSchema, body);
  await checkFilters(patch.filters);
  return deps.subscriptions.update(current.id, {
    filters: { ...(patch.filters ?? current.filters), monitor: patch.filters?.monitor ?? current.filters.monitor ?? false },
    timeZone: patch.timezone ?? current.timeZone,
  });
}
