/** Groups in the simulated SCIM service: both versions' bodies, member changes, and membership rules. */
import { describe, expect, it } from 'vitest';
import { control, createUser, PATCH_OP, scim, startScim, V1_CORE, V2_GROUP } from './scim-helpers.ts';

const memberIds = (group: { members: Array<{ value: string }> }) => group.members.map((m) => m.value);

describe('POST, GET, PUT and DELETE /Groups', () => {
  it('creates a group in either version and shows members with their display names', async () => {
    const sim = await startScim();
    const ada = await createUser(sim, 'ada', 'v2', { displayName: 'Ada L' });
    const v2 = await scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP], displayName: 'Engineering', members: [{ value: ada.id }] } });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ schemas: [V2_GROUP], displayName: 'Engineering', members: [{ value: ada.id, display: 'Ada L' }] });
    expect(v2.body.meta.location).toBe(`${sim.url}/scim/v2/Groups/${v2.body.id}`);
    const v1 = await scim(sim, 'v1', '/Groups', { method: 'POST', body: { schemas: [V1_CORE], displayName: 'Sales' } });
    expect(v1.body).toMatchObject({ schemas: [V1_CORE], displayName: 'Sales', members: [] });
    expect((await scim(sim, 'v2', `/Users/${ada.id}`)).body.groups).toEqual([{ value: v2.body.id, display: 'Engineering' }]);
  });

  it('refuses a group without displayName, and an unknown group id with no_such_group', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP] } })).body.detail).toBe('invalid_request_payload');
    expect((await scim(sim, 'v2', '/Groups', { method: 'POST', body: { displayName: 'x' } })).body.detail).toBe('missing_schema_element');
    expect((await scim(sim, 'v2', '/Groups/S404')).body.detail).toBe('no_such_group');
  });

  it('PUT replaces every member; in v2.0 omitting members leaves none', async () => {
    const sim = await startScim();
    const [a, b] = [await createUser(sim, 'a1'), await createUser(sim, 'b1')];
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    const v1 = await scim(sim, 'v1', `/Groups/${group.id}`, { method: 'PUT', body: { schemas: [V1_CORE], displayName: 'eng', members: [{ value: b.id }] } });
    expect(memberIds(v1.body)).toEqual([b.id]);
    const v2 = await scim(sim, 'v2', `/Groups/${group.id}`, { method: 'PUT', body: { schemas: [V2_GROUP], displayName: 'engineering' } });
    expect(v2.body).toMatchObject({ displayName: 'engineering', members: [] });
  });

  it('refuses to DELETE a group linked to channels with idp_group_linked_to_channels, until the links are gone', async () => {
    const sim = await startScim();
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng' });
    await control(sim, 'PUT', `/groups/${group.id}/channels`, { linkedChannels: 2 });
    const refused = await scim(sim, 'v2', `/Groups/${group.id}`, { method: 'DELETE' });
    expect(refused.body.detail).toBe('idp_group_linked_to_channels');
    expect((await scim(sim, 'v2', `/Groups/${group.id}`)).status).toBe(200);
    await control(sim, 'PUT', `/groups/${group.id}/channels`, { linkedChannels: 0 });
    expect((await scim(sim, 'v2', `/Groups/${group.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('DELETE removes the group for good but not its members', async () => {
    const sim = await startScim();
    const a = await createUser(sim, 'a1');
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    expect((await scim(sim, 'v2', `/Groups/${group.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scim(sim, 'v2', `/Groups/${group.id}`)).status).toBe(404);
    expect((await scim(sim, 'v2', `/Users/${a.id}`)).body).toMatchObject({ active: true, groups: [] });
  });
});

describe('PATCH /Groups/<id>', () => {
  it('v1.1: members with operation delete are removed, the others added', async () => {
    const sim = await startScim();
    const [a, b, c] = [await createUser(sim, 'a1'), await createUser(sim, 'b1'), await createUser(sim, 'c1')];
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id, b.id] });
    const reply = await scim(sim, 'v1', `/Groups/${group.id}`, {
      method: 'PATCH',
      body: { schemas: [V1_CORE], members: [{ value: a.id, operation: 'delete' }, { value: c.id }] },
    });
    expect(reply.status).toBe(200);
    expect(memberIds(reply.body)).toEqual([b.id, c.id]);
  });

  it('v2.0: replace members sets them all, remove members empties, members[value eq "<id>"] removes one', async () => {
    const sim = await startScim();
    const [a, b, c] = [await createUser(sim, 'a1'), await createUser(sim, 'b1'), await createUser(sim, 'c1')];
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    const patch = (...Operations: unknown[]) => scim(sim, 'v2', `/Groups/${group.id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations } });
    expect(memberIds((await patch({ op: 'replace', path: 'members', value: [{ value: b.id }, { value: c.id }] })).body)).toEqual([b.id, c.id]);
    expect(memberIds((await patch({ op: 'remove', path: `members[value eq "${b.id}"]` })).body)).toEqual([c.id]);
    expect(memberIds((await patch({ op: 'add', path: 'members', value: [{ value: a.id }] })).body)).toEqual([c.id, a.id]);
    expect(memberIds((await patch({ op: 'remove', path: 'members' })).body)).toEqual([]);
  });

  it('v2.0: applies operations in the order sent', async () => {
    const sim = await startScim();
    const [a, b] = [await createUser(sim, 'a1'), await createUser(sim, 'b1')];
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    const patch = (...Operations: unknown[]) => scim(sim, 'v2', `/Groups/${group.id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations } });
    // Added then removed: gone. Removed then added back: there.
    expect(
      memberIds((await patch({ op: 'add', path: 'members', value: [{ value: b.id }] }, { op: 'remove', path: `members[value eq "${b.id}"]` })).body),
    ).toEqual([a.id]);
    expect(memberIds((await patch({ op: 'remove', path: 'members' }, { op: 'add', path: 'members', value: [{ value: b.id }] })).body)).toEqual([b.id]);
  });

  it('v1.1: applies member entries in the order sent, after meta.attributes ["members"] empties the group', async () => {
    const sim = await startScim();
    const [a, b] = [await createUser(sim, 'a1'), await createUser(sim, 'b1')];
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    const reply = await scim(sim, 'v1', `/Groups/${group.id}`, {
      method: 'PATCH',
      body: { schemas: [V1_CORE], meta: { attributes: ['members'] }, members: [{ value: b.id }, { value: b.id, operation: 'delete' }, { value: a.id }] },
    });
    expect(memberIds(reply.body)).toEqual([a.id]);
  });

  it('refuses deactivated users and single-channel guests, accepts multi-channel guests', async () => {
    const sim = await startScim();
    const gone = await createUser(sim, 'gone');
    await scim(sim, 'v2', `/Users/${gone.id}`, { method: 'DELETE' });
    const single = await control(sim, 'POST', '/users', { userName: 'single', email: 'single@example.com', guest: 'single' });
    const multi = await control(sim, 'POST', '/users', { userName: 'multi', email: 'multi@example.com', guest: 'multi' });
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng' });
    const add = (id: string) => scim(sim, 'v1', `/Groups/${group.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], members: [{ value: id }] } });
    expect((await add(gone.id)).body.Errors.description).toBe('unable_to_add_deleted_or_guest_to_group');
    expect((await add(single.id)).body.Errors.description).toBe('unable_to_add_deleted_or_guest_to_group');
    expect((await add(multi.id)).status).toBe(200);
    expect((await add('U99999999')).body.Errors.description).toBe('no_such_group_members');
  });

  it('refuses more than 15,000 users in one call with too_many_users and changes nothing', async () => {
    const sim = await startScim();
    const a = await createUser(sim, 'a1');
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [a.id] });
    const members = Array.from({ length: 15_001 }, () => ({ value: a.id }));
    const reply = await scim(sim, 'v2', `/Groups/${group.id}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'members', value: members }] },
    });
    expect(reply.body.detail).toBe('too_many_users');
    expect(memberIds((await scim(sim, 'v2', `/Groups/${group.id}`)).body)).toEqual([a.id]);
  });

  it('holds a 15,000-member group and refuses the 15,001st member with group_member_max_exceeded', async () => {
    const sim = await startScim();
    const seeded = await control(sim, 'POST', '/seed', { users: 15_001, groups: [{ displayName: 'everyone', members: 15_000 }] });
    const group = seeded.groups[0];
    expect(group.members).toBe(15_000);
    const reply = await scim(sim, 'v1', `/Groups/${group.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], members: [{ value: seeded.lastUserId }] } });
    expect(reply.body.Errors.description).toBe('group_member_max_exceeded');
  }, 60_000);
});

describe('RFC 7644 modes', () => {
  it('answers /Groups/ with a 404 and /Groups as ever when trailing slashes are refused, and errors in free text when asked', async () => {
    const sim = await startScim();
    const seed = await control(sim, 'POST', '/seed', { users: 2, groups: [{ displayName: 'Ops', members: 1 }] });
    await control(sim, 'PUT', '/rfc', { trailingSlash404: true });
    expect((await scim(sim, 'v2', '/Groups/?startIndex=1')).status).toBe(404);
    expect((await scim(sim, 'v2', '/Groups?startIndex=1')).body.totalResults).toBe(1);
    expect((await scim(sim, 'v2', `/Groups/${seed.groups[0].id}`)).status).toBe(200);
    await control(sim, 'PUT', '/rfc', { plainErrors: true });
    await control(sim, 'DELETE', `/groups/${seed.groups[0].id}`);
    const gone = await scim(sim, 'v2', `/Groups/${seed.groups[0].id}`);
    expect(gone).toMatchObject({
      status: 404,
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404', detail: `Resource ${seed.groups[0].id} not found` },
    });
    // The vendor's bodies again once the mode is off.
    await control(sim, 'PUT', '/rfc', { plainErrors: false });
    expect((await scim(sim, 'v2', `/Groups/${seed.groups[0].id}`)).body).toMatchObject({ detail: 'no_such_group', status: 404 });
  });
});
