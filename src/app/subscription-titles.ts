/**
 * The titles of the subscriptions a page shows, from what the store already knows of their
 * targets: a group's name and member count (its link), an installation's workspace. Every admin
 * page that names a subscription reads its titles here; the reads are bounded by the page (one
 * group link per group subscription on it, one installation per distinct installation on it).
 */
import type { InstallationStore } from '../core/ports.ts';
import type { GroupDirectoryStore } from '../core/ports/scim-directory.ts';
import { groupIdOfTarget } from '../core/scim-group.ts';
import { parseAppTarget, type Subscription } from '../core/subscription.ts';
import { type AppNames, type GroupName, type SubscriptionTitle, subscriptionTitle } from '../core/subscription-title.ts';

export type TitleDeps = {
  store: Pick<InstallationStore, 'findInstallation'>;
  /** Absent when group subscriptions are not set up: their groups are then unknown by name. */
  groups?: { store: Pick<GroupDirectoryStore, 'groupLink'> };
};

/** What a title is made from: the stored subscription, with the conversation's name if it was kept. */
export type Titled = Pick<Subscription, 'id' | 'channel' | 'target'> & { targetName?: string | null };

/** Each subscription's title, by id. */
export async function subscriptionTitles(deps: TitleDeps, subscriptions: readonly Titled[]): Promise<Map<string, SubscriptionTitle>> {
  const groups = new Map<string, GroupName>();
  const apps = new Map<string, AppNames>();
  const groupStore = deps.groups?.store;
  const installationIds = new Set<string>();
  for (const s of subscriptions) {
    const parts = s.channel === 'app' ? parseAppTarget(s.target) : null;
    if (parts) installationIds.add(parts.installationId);
  }
  const [links, installations] = await Promise.all([
    Promise.all(
      subscriptions
        .filter((s) => groupStore && s.channel === 'email' && groupIdOfTarget(s.target) !== null)
        .map(async (s) => [s.id, await groupStore!.groupLink(s.id)] as const),
    ),
    Promise.all([...installationIds].map(async (id) => [id, await deps.store.findInstallation(id)] as const)),
  ]);
  for (const [id, link] of links) {
    if (link) groups.set(id, { groupName: link.groupName, memberCount: link.memberCount, synced: link.lastOkAt !== null, groupDeleted: link.groupDeleted });
  }
  const installationById = new Map(installations);
  for (const s of subscriptions) {
    const parts = s.channel === 'app' ? parseAppTarget(s.target) : null;
    if (!parts) continue;
    const installation = installationById.get(parts.installationId) ?? null;
    apps.set(s.id, { teamId: installation?.teamId ?? null, teamName: installation?.teamName ?? null, conversationName: s.targetName ?? null });
  }
  return new Map(subscriptions.map((s) => [s.id, subscriptionTitle(s, { groups, apps })]));
}

/** One subscription's title. */
export async function subscriptionTitleOf(deps: TitleDeps, subscription: Titled): Promise<SubscriptionTitle> {
  return (await subscriptionTitles(deps, [subscription])).get(subscription.id)!;
}
