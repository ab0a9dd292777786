/** The workspace's SCIM directory as group subscriptions read it, and the store of what each sync found. */
import type { RecordSkip } from '../outside-records.ts';
import type { GroupLogChange, GroupMember, MemberChange } from '../scim-group.ts';
import type { DirectoryGroup, DirectoryUser, ScimVersionName, SkippedRecord } from '../scim-resources.ts';

/** A list page's users, and the records on it that were skipped (core/scim-resources.ts readUser). */
export type UsersPage = { users: DirectoryUser[]; skipped: SkippedRecord[]; totalResults: number; startIndex: number };

/** What a client has cost so far: requests sent, and time spent waiting for the rate limits. */
export type ScimCallStats = { requests: number; pacedMs: number; retryAfterMs: number };

/** What one sync may spend of the directory: it ends when `signal` aborts, and reads at most `maxBytes` in all. */
export type ScimReadBudget = { signal: AbortSignal; maxBytes: number };

/** Every method fails with a ScimCallError (core/scim-errors.ts) when the directory does not answer as the spec says. */
export interface ScimDirectory {
  /** The version the directory speaks: v2.0 first, v1.1 when v2.0 answers unsupported_version. */
  version(): Promise<ScimVersionName>;
  /** Null when the directory says no_such_group. */
  group(id: string): Promise<DirectoryGroup | null>;
  /**
   * The group whose displayName is exactly `name` (listing: groups have no filterable attribute); null when none.
   * `seen` is told each group's name the listing reads, so a miss can say what the directory has;
   * `skipped`, each group record of the listing that is not the spec's shape, left out with its reason.
   */
  groupByName(name: string, seen?: (displayName: string) => void, skipped?: (skip: RecordSkip) => void): Promise<DirectoryGroup | null>;
  usersPage(startIndex: number, count: number): Promise<UsersPage>;
  /** Null when the directory says no_such_user or unknown_user; fails with invalid_record when the record is skipped. */
  user(id: string): Promise<DirectoryUser | null>;
  /** What this client has cost in all; a bounded view's, what that view has cost. */
  stats(): ScimCallStats;
  /**
   * The same directory (its version and rate-limit buckets shared, its cost added to the client's) within a budget: a call
   * fails with `deadline` (or `stopped`) once the signal aborts, waits included, and with
   * `over_budget` once the bytes run out.
   */
  bounded(budget: ScimReadBudget): ScimDirectory;
}

export type SyncOutcome = 'never' | 'ok' | 'failed';

/** A group subscription's link to its group, and how its last sync went. */
export type GroupLink = {
  subscriptionId: string;
  groupId: string;
  groupName: string;
  /** When the last sync (good or not) ended; null before the first. */
  syncedAt: number | null;
  outcome: SyncOutcome;
  /** The last failure's code, meaning and request, while the outcome is failed. */
  error: string | null;
  /** When the member list was last read in full: what a failed sync keeps. */
  lastOkAt: number | null;
  version: ScimVersionName | null;
  groupDeleted: boolean;
  /** Bumped by every good sync: a sync writes only over the revision it read. */
  revision: number;
  memberCount: number;
};

export type GroupLogEntry = {
  id: number;
  at: number;
  userId: string | null;
  email: string | null;
  displayName: string | null;
  change: GroupLogChange;
  detail: string | null;
};

export type GoodSync = {
  subscriptionId: string;
  /** The revision the sync read its previous member list at; the write is dropped if it moved. */
  revision: number;
  at: number;
  version: ScimVersionName;
  groupName: string;
  groupDeleted: boolean;
  /** The members new or changed since the list the sync read (core/scim-group.ts memberListChanges). */
  upserts: readonly DirectoryUser[];
  /** Ids on the list the sync read that are no longer members. */
  removedIds: readonly string[];
  /** How many members the list holds after this sync. */
  memberCount: number;
  changes: readonly MemberChange[];
  /** Records the sync left out, each logged as `record skipped` with its reason. */
  skipped: readonly SkippedRecord[];
};

export type FailedSync = {
  subscriptionId: string;
  /** The revision the sync read at: a failure is dropped when a good sync wrote after that. */
  revision: number;
  at: number;
  error: string;
};

export type MemberSend = { userId: string; state: 'sent' | 'refused' };

/**
 * A group subscription's rows (link, members, mutes, audit list) go with the subscription, in the
 * same step that deletes it (SubscriptionStore.deleteSubscription).
 */
export interface GroupDirectoryStore {
  /** Links a subscription to its group; nothing when the subscription no longer exists. */
  linkGroup(link: { subscriptionId: string; groupId: string; groupName: string }): Promise<void>;
  groupLink(subscriptionId: string): Promise<GroupLink | null>;
  /** Group subscriptions (of any status), oldest sync first, at most `limit`. */
  groupLinks(limit: number): Promise<GroupLink[]>;
  /** Members as last synced, by user id, after `afterUserId`. */
  members(subscriptionId: string, afterUserId: string | null, limit: number): Promise<GroupMember[]>;
  /** The whole last good list (at most a group's size), what a sync compares against. */
  allMembers(subscriptionId: string): Promise<GroupMember[]>;
  /** The audit list, newest first, before the entry with id `beforeId`. */
  log(subscriptionId: string, beforeId: number | null, limit: number): Promise<GroupLogEntry[]>;
  /**
   * Writes the member list's changes (the members who left go, those who joined or changed are
   * written, the rest is not touched), drops the mutes of members no longer on it, appends the changes to
   * the audit list (keeping the newest `logLimit` per group) and marks the sync good, in one step;
   * false when another sync wrote first.
   */
  applySync(sync: GoodSync, logLimit: number): Promise<boolean>;
  /**
   * Marks the sync failed and logs why; the member list stays as it was. False, and nothing
   * written, when a good sync wrote after the revision it read: the newer outcome stands.
   */
  recordSyncFailure(failure: FailedSync, logLimit: number): Promise<boolean>;
  /** Mutes one member for this group only; false when the subscription has no such link. */
  muteMember(subscriptionId: string, userId: string, at: number): Promise<boolean>;
  /** The members already sent (or refused for good) this delivery. */
  memberSends(deliveryKey: string): Promise<MemberSend[]>;
  /** Whether this delivery has sent (or refused for good) anyone yet: one seek, whatever the group's size. */
  hasMemberSends(deliveryKey: string): Promise<boolean>;
  /**
   * At most `limit` members who receive (core/scim-group.ts `receives`) and are not yet recorded
   * for this delivery, by user id: those after the highest id recorded first, then any left
   * behind before it, so each turn of a big delivery reads about what it sends.
   */
  unsentReceivers(subscriptionId: string, deliveryKey: string, limit: number): Promise<GroupMember[]>;
  recordMemberSends(deliveryKey: string, sends: readonly MemberSend[], at: number): Promise<void>;
}
