/**
 * The simulated directory: users and groups with their indexes and caps. Every write goes through
 * here, so uniqueness (userName, primary email), membership rules and bounds hold for the SCIM API
 * and the control API alike.
 */
import { ScimError } from './errors.ts';
import { cloneUser, type GroupRecord, type UserRecord } from './records.ts';

export type DirectoryLimits = {
  maxUsers: number;
  maxGroups: number;
  /** The spec's recommended ceiling for identity-provider groups. */
  maxMembersPerGroup: number;
  /** Memberships over all groups: bounds memory whatever the group count. */
  maxMemberships: number;
  /** "Up to 15,000 users can be modified per call." */
  maxMembersPerCall: number;
};

export const DEFAULT_DIRECTORY_LIMITS: DirectoryLimits = {
  maxUsers: 50_000,
  maxGroups: 1_000,
  maxMembersPerGroup: 15_000,
  maxMemberships: 200_000,
  maxMembersPerCall: 15_000,
};

/** One step of a membership change; a change is a list of steps applied in order, all or nothing. */
export type MemberStep = { kind: 'add' | 'remove'; ids: readonly string[] } | { kind: 'removeAll' };

export type Directory = {
  readonly limits: DirectoryLimits;
  /** All users in creation order (ids are issued in order, so this is also id order). */
  users(): UserRecord[];
  groups(): GroupRecord[];
  user(id: string): UserRecord | undefined;
  group(id: string): GroupRecord | undefined;
  nextUserId(): string;
  /** Stores a new or changed user after checking uniqueness; deactivation leaves every group. */
  saveUser(user: UserRecord): UserRecord;
  /** Forgets a user entirely (the control API's "this person left"): gone from lists and groups. */
  removeUser(id: string): boolean;
  /** A user id from a user id, primary email or userName (how the enterprise manager may be named). */
  resolveUserRef(ref: string): string | null;
  createGroup(displayName: string, memberIds: readonly string[], nowMs: number): GroupRecord;
  /** Refuses a name another group has (checked before a change that must not half-apply). */
  checkGroupName(displayName: string, exceptId: string | null): void;
  renameGroup(id: string, displayName: string): GroupRecord;
  changeMembers(id: string, steps: readonly MemberStep[]): GroupRecord;
  deleteGroup(id: string): boolean;
  groupsOf(userId: string): GroupRecord[];
  membershipCount(): number;
  clear(): void;
};

const userId = (n: number): string => `U${n.toString(36).toUpperCase().padStart(8, '0')}`;
const groupId = (n: number): string => `S${n.toString(36).toUpperCase().padStart(8, '0')}`;

export function createDirectory(limits: DirectoryLimits = DEFAULT_DIRECTORY_LIMITS): Directory {
  let users = new Map<string, UserRecord>();
  let groups = new Map<string, GroupRecord>();
  let byName = new Map<string, string>();
  let byEmail = new Map<string, string>();
  let memberships = 0;
  let userCounter = 0;
  let groupCounter = 0;

  const leaveAllGroups = (id: string): void => {
    for (const group of groups.values()) if (group.members.delete(id)) memberships -= 1;
  };

  const checkMembers = (ids: readonly string[]): void => {
    if (ids.length > limits.maxMembersPerCall) throw new ScimError('too_many_users', `${ids.length} members in one call; at most ${limits.maxMembersPerCall}`);
    for (const id of ids) {
      const user = users.get(id);
      if (!user) throw new ScimError('no_such_group_members', `no user ${JSON.stringify(id)}`);
      if (!user.active || user.singleChannelGuest)
        throw new ScimError('unable_to_add_deleted_or_guest_to_group', `${id} is deactivated or a single-channel guest`);
    }
  };

  const setMembers = (group: GroupRecord, next: Set<string>): void => {
    if (next.size > limits.maxMembersPerGroup) throw new ScimError('group_member_max_exceeded', `a group holds at most ${limits.maxMembersPerGroup} members`);
    const total = memberships - group.members.size + next.size;
    if (total > limits.maxMemberships)
      throw new ScimError('group_members_create_failed', `the directory holds at most ${limits.maxMemberships} memberships`, 507);
    memberships = total;
    group.members = next;
  };

  const uniqueName = (displayName: string, exceptId: string | null): void => {
    for (const g of groups.values()) {
      if (g.id !== exceptId && g.displayName.toLowerCase() === displayName.toLowerCase()) {
        throw new ScimError('group_creation_failed', `a group named ${JSON.stringify(displayName)} exists`, 409);
      }
    }
  };

  return {
    limits,
    users: () => [...users.values()],
    groups: () => [...groups.values()],
    user: (id) => users.get(id),
    group: (id) => groups.get(id),
    nextUserId() {
      if (users.size >= limits.maxUsers) throw new ScimError('user_creation_failed', `the directory holds at most ${limits.maxUsers} users`, 507);
      userCounter += 1;
      return userId(userCounter);
    },
    saveUser(input) {
      const user = cloneUser(input);
      const nameKey = user.userName.toLowerCase();
      const emailKey = user.primaryEmail.toLowerCase();
      const nameOwner = byName.get(nameKey);
      if (nameOwner !== undefined && nameOwner !== user.id) throw new ScimError('username_taken', `userName ${JSON.stringify(user.userName)} is taken`);
      const emailOwner = byEmail.get(emailKey);
      if (emailOwner !== undefined && emailOwner !== user.id) throw new ScimError('email_taken', `email ${JSON.stringify(user.primaryEmail)} is taken`);
      const previous = users.get(user.id);
      if (!previous && users.size >= limits.maxUsers) throw new ScimError('user_creation_failed', `the directory holds at most ${limits.maxUsers} users`, 507);
      if (previous) {
        byName.delete(previous.userName.toLowerCase());
        byEmail.delete(previous.primaryEmail.toLowerCase());
      }
      byName.set(nameKey, user.id);
      byEmail.set(emailKey, user.id);
      users.set(user.id, user);
      if (!user.active || user.singleChannelGuest) leaveAllGroups(user.id);
      return user;
    },
    removeUser(id) {
      const user = users.get(id);
      if (!user) return false;
      leaveAllGroups(id);
      byName.delete(user.userName.toLowerCase());
      byEmail.delete(user.primaryEmail.toLowerCase());
      users.delete(id);
      return true;
    },
    resolveUserRef(ref) {
      if (users.has(ref)) return ref;
      return byEmail.get(ref.toLowerCase()) ?? byName.get(ref.toLowerCase()) ?? null;
    },
    createGroup(displayName, memberIds, nowMs) {
      if (groups.size >= limits.maxGroups) throw new ScimError('group_creation_failed', `the directory holds at most ${limits.maxGroups} groups`, 507);
      uniqueName(displayName, null);
      checkMembers(memberIds);
      groupCounter += 1;
      const group: GroupRecord = { id: groupId(groupCounter), createdMs: nowMs, displayName, members: new Set(), linkedChannels: 0 };
      setMembers(group, new Set(memberIds));
      groups.set(group.id, group);
      return group;
    },
    checkGroupName: uniqueName,
    renameGroup(id, displayName) {
      const group = groups.get(id);
      if (!group) throw new ScimError('no_such_group', `no group ${JSON.stringify(id)}`);
      uniqueName(displayName, id);
      group.displayName = displayName;
      return group;
    },
    changeMembers(id, steps) {
      const group = groups.get(id);
      if (!group) throw new ScimError('no_such_group', `no group ${JSON.stringify(id)}`);
      const touched = steps.reduce((n, step) => n + (step.kind === 'removeAll' ? 0 : step.ids.length), 0);
      if (touched > limits.maxMembersPerCall) throw new ScimError('too_many_users', `${touched} members in one call; at most ${limits.maxMembersPerCall}`);
      for (const step of steps) if (step.kind === 'add') checkMembers(step.ids);
      const next = new Set(group.members);
      for (const step of steps) {
        if (step.kind === 'removeAll') next.clear();
        else if (step.kind === 'remove') for (const m of step.ids) next.delete(m);
        else for (const m of step.ids) next.add(m);
      }
      setMembers(group, next);
      return group;
    },
    deleteGroup(id) {
      const group = groups.get(id);
      if (!group) return false;
      memberships -= group.members.size;
      groups.delete(id);
      return true;
    },
    groupsOf(id) {
      return [...groups.values()].filter((g) => g.members.has(id));
    },
    membershipCount: () => memberships,
    clear() {
      users = new Map();
      groups = new Map();
      byName = new Map();
      byEmail = new Map();
      memberships = 0;
    },
  };
}
