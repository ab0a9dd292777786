/**
 * The group directory store's contract: a good sync replaces the member list and
 * appends its changes in one step and only over the revision it read; a failed one keeps the list;
 * the audit list keeps the newest N per group; a mute lasts while its member stays in the group;
 * per-member sends are idempotent, and a delivery reads only its next unsent receivers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GoodSync, GroupDirectoryStore } from '../../src/core/ports/scim-directory.ts';
import { memberListChanges, receives, type MemberChange } from '../../src/core/scim-group.ts';
import type { DirectoryUser } from '../../src/core/scim-resources.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const SUB = 'sub_group';

const user = (n: number, over: Partial<DirectoryUser> = {}): DirectoryUser => ({
  id: `U${String(n).padStart(6, '0')}`,
  email: `user${n}@example.test`,
  active: true,
  timeZone: n % 2 === 0 ? 'Europe/Berlin' : null,
  displayName: `User ${n}`,
  ...over,
});

/** A good sync as the app makes one: `members` is the whole new list, written as its changes from the stored one. */
type ListSync = Partial<Omit<GoodSync, 'upserts' | 'removedIds' | 'memberCount'>> & { members?: DirectoryUser[] };

const added = (u: DirectoryUser): MemberChange => ({ userId: u.id, email: u.email, displayName: u.displayName, change: 'added' });

export function scimGroupsContract(target: StoreTarget): void {
  describe(`group directory store (${target.name})`, () => {
    let opened: OpenedStore;
    let groups: GroupDirectoryStore;
    beforeEach(async () => {
      opened = await target.open();
      groups = opened.groups;
      await opened.store.createSubscription(storedSubscription(SUB, { channel: 'email', target: 'scim-group:G1' }, T0));
      await groups.linkGroup({ subscriptionId: SUB, groupId: 'G1', groupName: 'Ops' });
    });
    afterEach(() => opened.close());

    const applyList = async (over: ListSync, logLimit: number) => {
      const { members = [], ...rest } = over;
      const stored = await groups.allMembers(rest.subscriptionId ?? SUB);
      const sync: GoodSync = {
        subscriptionId: SUB,
        revision: 0,
        at: T0,
        version: 'v2',
        groupName: 'Ops',
        groupDeleted: false,
        changes: [],
        skipped: [],
        ...rest,
        ...memberListChanges(stored, members),
        memberCount: members.length,
      };
      return groups.applySync(sync, logLimit);
    };

    it('starts never synced, with no members', async () => {
      expect(await groups.groupLink(SUB)).toMatchObject({ groupId: 'G1', groupName: 'Ops', outcome: 'never', syncedAt: null, revision: 0, memberCount: 0 });
      expect(await groups.groupLink('sub_other')).toBeNull();
      expect((await groups.groupLinks(10)).map((l) => l.subscriptionId)).toEqual([SUB]);
    });

    it('writes a good sync whole: members, audit entries, outcome and revision', async () => {
      const members = [user(3), user(1), user(2, { active: false, email: null })];
      expect(await applyList({ members, changes: [added(user(1)), added(user(3))] }, 100)).toBe(true);
      const link = await groups.groupLink(SUB);
      expect(link).toMatchObject({ outcome: 'ok', syncedAt: T0, lastOkAt: T0, version: 'v2', revision: 1, memberCount: 3, error: null });
      const page1 = await groups.members(SUB, null, 2);
      expect(page1.map((m) => m.id)).toEqual(['U000001', 'U000002']);
      expect(page1[1]).toEqual({ id: 'U000002', email: null, active: false, timeZone: 'Europe/Berlin', displayName: 'User 2', muted: false });
      expect((await groups.members(SUB, 'U000002', 2)).map((m) => m.id)).toEqual(['U000003']);
      expect((await groups.allMembers(SUB)).map((m) => m.id)).toEqual(['U000001', 'U000002', 'U000003']);
      const log = await groups.log(SUB, null, 10);
      expect(log.map((e) => [e.userId, e.change])).toEqual([
        ['U000003', 'added'],
        ['U000001', 'added'],
      ]);
    });

    it('logs each record a sync skipped with its reason, after its changes', async () => {
      const skipped = [
        { userId: 'U000009', reason: 'displayName: longer than 400 characters' },
        { userId: null, reason: 'group member value: longer than 100 characters' },
      ];
      expect(await applyList({ members: [user(1)], changes: [added(user(1))], skipped }, 100)).toBe(true);
      const log = await groups.log(SUB, null, 10);
      expect(log.map((e) => [e.userId, e.change, e.detail])).toEqual([
        [null, 'record skipped', 'group member value: longer than 100 characters'],
        ['U000009', 'record skipped', 'displayName: longer than 400 characters'],
        ['U000001', 'added', null],
      ]);
      expect((await groups.allMembers(SUB)).map((m) => m.id)).toEqual(['U000001']);
    });

    it('writes a later sync as its changes: who left goes, who joined or changed is written, the rest and their mutes stay', async () => {
      expect(await applyList({ members: [user(1), user(2), user(3)] }, 100)).toBe(true);
      expect(await groups.muteMember(SUB, 'U000002', T0)).toBe(true);
      const changed = user(3, { email: 'new3@example.test', timeZone: 'Asia/Tokyo' });
      expect(await applyList({ revision: 1, members: [user(2), changed, user(4)] }, 100)).toBe(true);
      expect(await groups.allMembers(SUB)).toEqual([
        { ...user(2), muted: true },
        { ...changed, muted: false },
        { ...user(4), muted: false },
      ]);
      expect((await groups.groupLink(SUB))?.memberCount).toBe(3);
      // A sync that finds nothing changed writes no member at all, and keeps the count.
      const nothing = { subscriptionId: SUB, revision: 2, at: T0 + 1, version: 'v2', groupName: 'Ops', groupDeleted: false, changes: [], skipped: [] } as const;
      expect(await groups.applySync({ ...nothing, upserts: [], removedIds: [], memberCount: 3 }, 100)).toBe(true);
      expect((await groups.allMembers(SUB)).map((m) => m.id)).toEqual(['U000002', 'U000003', 'U000004']);
      expect(await groups.groupLink(SUB)).toMatchObject({ memberCount: 3, revision: 3, syncedAt: T0 + 1 });
    });

    it('writes nothing from a sync that read an older revision (another sync wrote first)', async () => {
      expect(await applyList({ members: [user(1)], changes: [added(user(1))] }, 100)).toBe(true);
      expect(await applyList({ revision: 0, members: [user(9)], changes: [added(user(9))] }, 100)).toBe(false);
      expect((await groups.allMembers(SUB)).map((m) => m.id)).toEqual(['U000001']);
      expect(await groups.log(SUB, null, 10)).toHaveLength(1);
      expect((await groups.groupLink(SUB))?.revision).toBe(1);
    });

    it('keeps the last good member list when a sync fails, and logs why', async () => {
      await applyList({ members: [user(1), user(2)] }, 100);
      expect(await groups.recordSyncFailure({ subscriptionId: SUB, revision: 1, at: T0 + 60_000, error: 'GET /scim/v2/Groups/G1: http_500' }, 100)).toBe(true);
      expect(await groups.groupLink(SUB)).toMatchObject({ outcome: 'failed', syncedAt: T0 + 60_000, lastOkAt: T0, error: 'GET /scim/v2/Groups/G1: http_500' });
      expect(await groups.allMembers(SUB)).toHaveLength(2);
      expect((await groups.log(SUB, null, 10))[0]).toMatchObject({ change: 'sync failed', detail: 'GET /scim/v2/Groups/G1: http_500', userId: null });
    });

    it('drops a failure from a sync that read an older revision: a newer good sync’s outcome stands', async () => {
      // Two syncs read revision 0; the fast one succeeds, then the slow one fails.
      expect(await applyList({ at: T0 + 5_000, members: [user(1)], changes: [added(user(1))] }, 100)).toBe(true);
      expect(await groups.recordSyncFailure({ subscriptionId: SUB, revision: 0, at: T0 + 20_000, error: 'GET /scim/v2/Groups/G1: http_500' }, 100)).toBe(false);
      expect(await groups.groupLink(SUB)).toMatchObject({ outcome: 'ok', syncedAt: T0 + 5_000, lastOkAt: T0 + 5_000, error: null, revision: 1 });
      expect((await groups.log(SUB, null, 10)).map((e) => e.change)).toEqual(['added']);
      // A failure over the revision it read is kept, and leaves the revision for the next sync.
      expect(await groups.recordSyncFailure({ subscriptionId: SUB, revision: 1, at: T0 + 30_000, error: 'timeout' }, 100)).toBe(true);
      expect(await groups.groupLink(SUB)).toMatchObject({ outcome: 'failed', error: 'timeout', revision: 1, lastOkAt: T0 + 5_000 });
      expect(await groups.recordSyncFailure({ subscriptionId: 'sub_unknown', revision: 0, at: T0, error: 'x' }, 100)).toBe(false);
    });

    it('keeps only the newest N audit entries of a group, and leaves other groups alone', async () => {
      await opened.store.createSubscription(storedSubscription('sub_other', { channel: 'email', target: 'scim-group:G2' }, T0));
      await groups.linkGroup({ subscriptionId: 'sub_other', groupId: 'G2', groupName: 'Other' });
      await applyList({ subscriptionId: 'sub_other', changes: [added(user(50))] }, 3);
      for (let i = 0; i < 4; i += 1) {
        await applyList({ revision: i, at: T0 + i, members: [user(i)], changes: [added(user(10 + 2 * i)), added(user(11 + 2 * i))] }, 3);
      }
      await groups.recordSyncFailure({ subscriptionId: SUB, revision: 4, at: T0 + 10, error: 'boom' }, 3);
      const log = await groups.log(SUB, null, 100);
      expect(log.map((e) => e.userId ?? e.change)).toEqual(['sync failed', 'U000017', 'U000016']);
      expect(await groups.log('sub_other', null, 100)).toHaveLength(1);
      // Pages newest first.
      expect((await groups.log(SUB, log[0]!.id, 1)).map((e) => e.userId)).toEqual(['U000017']);
    });

    it('keeps a mute through later syncs, for that member of that group only', async () => {
      await applyList({ members: [user(1), user(2)] }, 100);
      expect(await groups.muteMember(SUB, 'U000001', T0)).toBe(true);
      expect(await groups.muteMember(SUB, 'U000001', T0 + 1)).toBe(true);
      expect(await groups.muteMember('sub_unknown', 'U000001', T0)).toBe(false);
      await applyList({ revision: 1, members: [user(1), user(2)] }, 100);
      expect((await groups.allMembers(SUB)).map((m) => [m.id, m.muted])).toEqual([
        ['U000001', true],
        ['U000002', false],
      ]);
    });

    it('records each member of a delivery once', async () => {
      await groups.recordMemberSends('msg_1', [{ userId: 'U1', state: 'sent' }], T0);
      await groups.recordMemberSends(
        'msg_1',
        [
          { userId: 'U1', state: 'refused' },
          { userId: 'U2', state: 'refused' },
        ],
        T0 + 5,
      );
      await groups.recordMemberSends('msg_2', [{ userId: 'U1', state: 'sent' }], T0 + 10);
      expect((await groups.memberSends('msg_1')).sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
        { userId: 'U1', state: 'sent' },
        { userId: 'U2', state: 'refused' },
      ]);
      expect(await groups.memberSends('msg_2')).toHaveLength(1);
    });

    it('drops the mute of a member who left the group: rejoining receives again, and mutes stay within the group', async () => {
      await applyList({ members: [user(1), user(2), user(3)] }, 100);
      for (const id of ['U000001', 'U000002']) expect(await groups.muteMember(SUB, id, T0)).toBe(true);
      // A sync that lost the race removes no mute.
      await applyList({ revision: 0, members: [user(3)] }, 100);
      expect((await groups.allMembers(SUB)).filter((m) => m.muted).map((m) => m.id)).toEqual(['U000001', 'U000002']);
      await applyList({ revision: 1, members: [user(2), user(3)] }, 100);
      await applyList({ revision: 2, members: [user(1), user(2), user(3)] }, 100);
      expect((await groups.allMembers(SUB)).map((m) => [m.id, m.muted])).toEqual([
        ['U000001', false],
        ['U000002', true],
        ['U000003', false],
      ]);
      // The group deleted: nobody is on the list, so no mute is left.
      await applyList({ revision: 3, groupDeleted: true, members: [] }, 100);
      await applyList({ revision: 4, members: [user(2)] }, 100);
      expect((await groups.allMembers(SUB)).map((m) => m.muted)).toEqual([false]);
    });

    it('gives a delivery its next unsent receivers a turn at a time, then any left behind', async () => {
      const members = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => user(n, n === 2 ? { active: false } : n === 3 ? { email: null } : {}));
      await applyList({ members }, 100);
      await groups.muteMember(SUB, 'U000004', T0);
      const ids = async (key: string, limit: number) => (await groups.unsentReceivers(SUB, key, limit)).map((m) => m.id);
      // The same members the pure rule (core/scim-group.ts receives) picks from the whole list.
      const receiving = (await groups.allMembers(SUB)).filter(receives).map((m) => m.id);
      expect(receiving).toEqual(['U000001', 'U000005', 'U000006', 'U000007', 'U000008']);
      expect(await ids('msg_1', 100)).toEqual(receiving);
      expect(await groups.hasMemberSends('msg_1')).toBe(false);
      expect(await ids('msg_1', 2)).toEqual(['U000001', 'U000005']);
      // U000001 was refused for now (not recorded): it waits until the members after it are done.
      await groups.recordMemberSends('msg_1', [{ userId: 'U000005', state: 'sent' }], T0);
      expect(await groups.hasMemberSends('msg_1')).toBe(true);
      expect(await ids('msg_1', 2)).toEqual(['U000006', 'U000007']);
      await groups.recordMemberSends(
        'msg_1',
        [
          { userId: 'U000006', state: 'sent' },
          { userId: 'U000007', state: 'refused' },
        ],
        T0,
      );
      expect(await ids('msg_1', 2)).toEqual(['U000008', 'U000001']);
      await groups.recordMemberSends('msg_1', [{ userId: 'U000008', state: 'sent' }], T0);
      expect(await ids('msg_1', 2)).toEqual(['U000001']);
      await groups.recordMemberSends('msg_1', [{ userId: 'U000001', state: 'sent' }], T0);
      expect(await ids('msg_1', 2)).toEqual([]);
      // Another delivery, and another group, start from nothing.
      expect(await ids('msg_2', 100)).toEqual(receiving);
      expect(await groups.unsentReceivers('sub_other', 'msg_1', 100)).toEqual([]);
      expect((await groups.unsentReceivers(SUB, 'msg_2', 1))[0]).toEqual({ ...user(1), muted: false });
    });

    it('deletes a group subscription’s link, members, mutes and audit list with it, and nothing of the others', async () => {
      await opened.store.createSubscription(storedSubscription('sub_other', { channel: 'email', target: 'scim-group:G2' }, T0));
      await groups.linkGroup({ subscriptionId: 'sub_other', groupId: 'G2', groupName: 'Other' });
      for (const id of [SUB, 'sub_other']) {
        await applyList({ subscriptionId: id, members: [user(1), user(2)], changes: [added(user(1))] }, 100);
        await groups.muteMember(id, 'U000001', T0);
      }
      expect(await opened.store.deleteSubscription(SUB)).toBe(true);
      expect(await groups.groupLink(SUB)).toBeNull();
      expect(await groups.allMembers(SUB)).toEqual([]);
      expect(await groups.log(SUB, null, 10)).toEqual([]);
      expect(await groups.muteMember(SUB, 'U000002', T0)).toBe(false);
      // A link written after the delete (a create racing it) is refused, not left behind.
      await groups.linkGroup({ subscriptionId: SUB, groupId: 'G1', groupName: 'Ops' });
      expect(await groups.groupLink(SUB)).toBeNull();
      // The same id made anew starts clean: no mute of the old one's member survives.
      await opened.store.createSubscription(storedSubscription(SUB, { channel: 'email', target: 'scim-group:G1' }, T0));
      await groups.linkGroup({ subscriptionId: SUB, groupId: 'G1', groupName: 'Ops' });
      await applyList({ members: [user(1)] }, 100);
      expect((await groups.allMembers(SUB)).map((m) => m.muted)).toEqual([false]);
      expect(await groups.log(SUB, null, 10)).toEqual([]);
      expect((await groups.allMembers('sub_other')).map((m) => m.muted)).toEqual([true, false]);
      expect(await groups.log('sub_other', null, 10)).toHaveLength(1);
    });

    it("writes the spec's largest group (15,000 members) in one step", async () => {
      const members = Array.from({ length: 15_000 }, (_, i) => user(i + 1));
      expect(await applyList({ members, changes: members.slice(0, 3000).map(added) }, 500)).toBe(true);
      expect((await groups.groupLink(SUB))?.memberCount).toBe(15_000);
      expect(await groups.log(SUB, null, 1000)).toHaveLength(500);
      // A shrink to 2 replaces the list as a whole.
      expect(await applyList({ revision: 1, members: [user(1), user(2)] }, 500)).toBe(true);
      expect((await groups.groupLink(SUB))?.memberCount).toBe(2);
    });
  });
}
