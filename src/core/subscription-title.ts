/**
 * A subscription as a person reads it: a title in names ("#status-updates (Demo workspace)",
 * "Support (10 members)") and a detail line with the ids behind it. The names are what the store
 * already knows (a group's name and member count from its last sync, an installation's workspace
 * name, a conversation's name when the subscription was made); a name not known is said to be
 * unknown, next to its id, never guessed.
 */
import { groupIdOfTarget } from './scim-group.ts';
import { hasSealedUrl, isOnCallChannel, parseAppTarget, sealedUrlHost, type Subscription } from './subscription.ts';

/** What the store knows of a group subscription's group, as its last sync wrote it. */
export type GroupName = { groupName: string; memberCount: number; synced: boolean; groupDeleted: boolean };

/** What the store knows of an app subscription's workspace and conversation. */
export type AppNames = { teamId: string | null; teamName: string | null; conversationName: string | null };

export type TargetNames = {
  /** By subscription id: group subscriptions whose link was read. */
  groups: ReadonlyMap<string, GroupName>;
  /** By subscription id: app subscriptions whose names were read. */
  apps: ReadonlyMap<string, AppNames>;
};

export const NO_NAMES: TargetNames = { groups: new Map(), apps: new Map() };

export type SubscriptionTitle = {
  /** The names, in one line. */
  title: string;
  /** The ids behind the title (null when the title is the target itself, as an email address is). */
  detail: string | null;
};

/** Longest title of a URL target: a receiver's path can hold a long token, which the detail line carries whole. */
export const URL_TITLE_MAX_CHARS = 60;

export function subscriptionTitle(subscription: Pick<Subscription, 'id' | 'channel' | 'target'>, names: TargetNames): SubscriptionTitle {
  const { id, channel, target } = subscription;
  if (channel === 'email') {
    const groupId = groupIdOfTarget(target);
    if (groupId === null) return { title: target, detail: null };
    return { title: groupTitle(groupId, names.groups.get(id)), detail: `directory group ${groupId}` };
  }
  if (channel === 'app') {
    const parts = parseAppTarget(target);
    if (!parts) return { title: target, detail: null };
    const known = names.apps.get(id);
    const conversation = known?.conversationName ? `#${known.conversationName}` : `Conversation ${parts.conversationId}, name unknown`;
    const workspace = known?.teamName ?? (known?.teamId ? `workspace ${known.teamId}, name unknown` : 'installation no longer kept');
    const teamPart = known?.teamId ? `workspace ${known.teamId} · ` : '';
    return { title: `${conversation} (${workspace})`, detail: `${teamPart}conversation ${parts.conversationId} · installation ${parts.installationId}` };
  }
  // The tool's key is the secret: the target already names only the tool (and Opsgenie's region).
  if (isOnCallChannel(channel)) return { title: target, detail: null };
  // The URL authorizes posting: only its host is ever shown.
  if (hasSealedUrl(channel)) return { title: `${channel === 'teams' ? 'Microsoft Teams' : 'Discord'} webhook on ${sealedUrlHost(target)}`, detail: null };
  return { title: urlTitle(target), detail: target };
}

function groupTitle(groupId: string, group: GroupName | undefined): string {
  if (!group) return `Group ${groupId} (name unknown)`;
  if (group.groupDeleted) return `${group.groupName} (deleted in the directory)`;
  if (!group.synced) return `${group.groupName} (members not read yet)`;
  return `${group.groupName} (${group.memberCount} ${group.memberCount === 1 ? 'member' : 'members'})`;
}

/** A receiver URL as its host and the start of its path, at most URL_TITLE_MAX_CHARS. */
function urlTitle(target: string): string {
  let shown = target;
  try {
    const url = new URL(target);
    shown = `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    // Not a URL: shown as stored, shortened alike.
  }
  return shown.length <= URL_TITLE_MAX_CHARS ? shown : `${shown.slice(0, URL_TITLE_MAX_CHARS - 1)}…`;
}
