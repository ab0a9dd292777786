/** The pure decisions of group subscriptions: who changed and why, how to read users, where paging goes, and the client's pacing. */
import { describe, expect, it } from 'vitest';
import { chooseUserReads, departedMembers, diffMembers, memberListChanges, memberMessageId, receives } from '../../src/core/scim-group.ts';
import { pace, scopesOf, type PacerBuckets } from '../../src/core/scim-pacer.ts';
import { nextPage, readUser, scimErrorCode, toDirectoryUser } from '../../src/core/scim-resources.ts';
import type { DirectoryUser } from '../../src/core/scim-resources.ts';
import { HOSTILE_ADDRESSES } from '../fixtures/hostile-addresses.ts';

const u = (id: string, active = true): DirectoryUser => ({ id, email: `${id}@example.test`, active, timeZone: null, displayName: id });

describe('diffMembers', () => {
  it('names joins, leaves, deactivations and reactivations', () => {
    const previous = [u('A'), u('B'), u('C'), u('D', false)];
    const current = [u('A'), u('C', false), u('D'), u('E')];
    const lookup = new Map([['B', u('B')]]);
    expect(diffMembers(previous, current, (id) => lookup.get(id)).map((c) => [c.userId, c.change])).toEqual([
      ['B', 'removed: left group'],
      ['C', 'removed: deactivated'],
      ['D', 'added'],
      ['E', 'added'],
    ]);
  });

  it('calls a former member the directory no longer has, or has inactive, deactivated', () => {
    expect(diffMembers([u('A'), u('B')], [], (id) => (id === 'B' ? u('B', false) : undefined)).map((c) => c.change)).toEqual([
      'removed: deactivated',
      'removed: deactivated',
    ]);
  });

  it('removes every active member of a deleted group, and nobody who was already not receiving', () => {
    expect(diffMembers([u('A'), u('B', false)], null, () => undefined)).toEqual([
      { userId: 'A', email: 'A@example.test', displayName: 'A', change: 'removed: group deleted' },
    ]);
  });

  it('puts a member whose email is not one address on the audit list once, with the value the directory gave', () => {
    const hostile = (id: string): DirectoryUser => ({ ...u(id), email: null, refusedEmail: `${id}@example.test, eve@evil.example` });
    expect(diffMembers([u('A')], [u('A'), hostile('B')], () => undefined)).toEqual([
      { userId: 'B', email: null, displayName: 'B', change: 'added' },
      { userId: 'B', email: 'B@example.test, eve@evil.example', displayName: 'B', change: 'refused: email not one address' },
    ]);
    // A good address that turns hostile is said too; once stored as none, it is not said again.
    expect(diffMembers([u('A')], [hostile('A')], () => undefined).map((c) => c.change)).toEqual(['refused: email not one address']);
    expect(diffMembers([{ ...u('A'), email: null }], [hostile('A')], () => undefined)).toEqual([]);
  });

  it('says nothing when nothing changed', () => {
    expect(diffMembers([u('A')], [u('A')], () => undefined)).toEqual([]);
    expect(departedMembers([u('A'), u('B'), u('C', false)], new Set(['A']))).toEqual(['B']);
  });

  it('lets only active members with an email and no mute receive', () => {
    expect(receives({ active: true, email: 'a@x.test', muted: false })).toBe(true);
    expect(receives({ active: false, email: 'a@x.test', muted: false })).toBe(false);
    expect(receives({ active: true, email: null, muted: false })).toBe(false);
    expect(receives({ active: true, email: 'a@x.test', muted: true })).toBe(false);
  });
});

describe('memberListChanges', () => {
  const person = (id: string, over: Partial<DirectoryUser> = {}): DirectoryUser => ({
    id,
    email: `${id}@example.test`,
    active: true,
    timeZone: null,
    displayName: id,
    ...over,
  });

  it('writes only who joined or changed in any field, and deletes who left', () => {
    const previous = [person('a'), person('b'), person('c'), person('d'), person('e'), person('f')];
    const current = [
      person('a'),
      person('b', { email: null }),
      person('c', { active: false }),
      person('d', { timeZone: 'Asia/Tokyo' }),
      person('e', { displayName: 'E.' }),
      person('g'),
    ];
    const { upserts, removedIds } = memberListChanges(previous, current);
    expect(upserts.map((u) => u.id)).toEqual(['b', 'c', 'd', 'e', 'g']);
    expect(removedIds).toEqual(['f']);
    expect(memberListChanges(current, current)).toEqual({ upserts: [], removedIds: [] });
  });
});

describe('chooseUserReads', () => {
  it('lists pages for a big group, GETs each member of a small group in a big directory', () => {
    expect(chooseUserReads({ unreadMembers: 14_000, totalUsers: 15_000, listedSoFar: 1000 })).toBe('list');
    expect(chooseUserReads({ unreadMembers: 3, totalUsers: 15_000, listedSoFar: 1000 })).toBe('get');
    // A tie goes to the page: it draws on no per-endpoint row.
    expect(chooseUserReads({ unreadMembers: 2, totalUsers: 3000, listedSoFar: 1000 })).toBe('list');
  });
});

describe('nextPage', () => {
  it('goes on until totalResults is reached, whatever a page held, and calls an empty page early a missing one', () => {
    expect(nextPage(1, 1000, 2500)).toEqual({ kind: 'next', startIndex: 1001 });
    expect(nextPage(1001, 300, 2500)).toEqual({ kind: 'next', startIndex: 1301 });
    expect(nextPage(2001, 500, 2500)).toEqual({ kind: 'done' });
    expect(nextPage(1301, 0, 2500)).toEqual({ kind: 'missing' });
    expect(nextPage(1, 0, 0)).toEqual({ kind: 'done' });
  });
});

describe('SCIM answers', () => {
  it("reads the error code of both versions' bodies", () => {
    expect(scimErrorCode({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], detail: 'no_such_group', status: 404 })).toBe('no_such_group');
    expect(scimErrorCode({ Errors: { description: 'invalid_authentication', code: 401 } })).toBe('invalid_authentication');
    expect(scimErrorCode({ Errors: [{ description: 'too_many_requests', code: 429 }] })).toBe('too_many_requests');
    expect(scimErrorCode('<html>')).toBeNull();
  });

  it('takes the primary email only, and an absent active as not active', () => {
    expect(
      toDirectoryUser({
        id: 'U1',
        emails: [
          { value: 'home@x.test', primary: false },
          { value: 'work@x.test', primary: true },
        ],
        active: true,
      }).email,
    ).toBe('work@x.test');
    expect(toDirectoryUser({ id: 'U1', emails: [{ value: 'home@x.test', primary: false }], active: true }).email).toBeNull();
    expect(toDirectoryUser({ id: 'U1', userName: 'u1', displayName: '' }).active).toBe(false);
    expect(toDirectoryUser({ id: 'U1', emails: [{ value: ' work@x.test ', primary: true }], active: true }).email).toBe('work@x.test');
    expect(toDirectoryUser({ id: 'U1', userName: 'u1', displayName: '' }).displayName).toBe('u1');
  });
});

describe('a directory email that is not one address', () => {
  it.each(HOSTILE_ADDRESSES)('gives %j no email, and keeps the value for the audit list', (value) => {
    const user = toDirectoryUser({ id: 'U3', emails: [{ value, primary: true }], active: true });
    expect(user).toMatchObject({ email: null, refusedEmail: value });
    expect(receives({ ...user, muted: false })).toBe(false);
  });
});

describe('memberMessageId', () => {
  it('is the same for one member of one delivery every time, and differs for any other', async () => {
    const id = await memberMessageId('msg_delivery_1', 'U01', 'status.example.test');
    expect(id).toMatch(/^<group\.[0-9a-f]{40}@status\.example\.test>$/);
    expect(await memberMessageId('msg_delivery_1', 'U01', 'status.example.test')).toBe(id);
    expect(await memberMessageId('msg_delivery_1', 'U02', 'status.example.test')).not.toBe(id);
    expect(await memberMessageId('msg_delivery_2', 'U01', 'status.example.test')).not.toBe(id);
    // A user id of any shape still makes a Message-ID of the header's syntax.
    expect(await memberMessageId('msg_delivery_1', 'a b>\r\nBcc: x', 'status.example.test')).toMatch(/^<group\.[0-9a-f]{40}@status\.example\.test>$/);
  });
});

describe('pace', () => {
  it("lets the burst of a row go at once, then waits for the row's rate", () => {
    let buckets: PacerBuckets = {};
    const scopes = scopesOf('/Users/U1');
    expect(scopes).toEqual(['reads', 'users.get']);
    for (let i = 0; i < 300; i += 1) {
      const decision = pace(buckets, scopes, 0);
      if (decision.kind !== 'go') throw new Error(`refused at ${i}`);
      buckets = decision.buckets;
    }
    expect(pace(buckets, scopes, 0)).toEqual({ kind: 'wait', waitMs: 200 });
    expect(pace(buckets, scopes, 200).kind).toBe('go');
    // A list page draws only on the org-wide reads bucket, which still has 700.
    expect(pace(buckets, scopesOf('/Users?startIndex=1&count=1000'), 0).kind).toBe('go');
  });

  it('reads one user record, or says why it is skipped: a field past its bound, the wrong shape', () => {
    const user = { id: 'U1', displayName: 'Ann', active: true, emails: [{ value: 'ann@example.test', primary: true }] };
    expect(readUser(user)).toMatchObject({ kind: 'user', user: { id: 'U1', email: 'ann@example.test' } });
    expect(readUser({ ...user, displayName: 'x'.repeat(401) })).toEqual({
      kind: 'skipped',
      skipped: { userId: 'U1', reason: 'displayName: longer than 400 characters' },
    });
    expect(readUser({ ...user, id: 'U'.repeat(101) })).toMatchObject({ kind: 'skipped', skipped: { userId: null } });
    expect(readUser('not a record')).toMatchObject({ kind: 'skipped', skipped: { userId: null } });
    // A hostile address is no reason to skip the record: the member stays, with nothing to mail to.
    expect(readUser({ ...user, emails: [{ value: 'ann@example.test\r\nBcc: eve@evil.example', primary: true }] })).toMatchObject({
      kind: 'user',
      user: { id: 'U1', email: null, refusedEmail: 'ann@example.test\r\nBcc: eve@evil.example' },
    });
  });
});
