/** The SCIM sim's control API: seeding, people coming and going between polls, faults, counters and bounds. */
import { describe, expect, it, vi } from 'vitest';
import { control, createUser, newUser, PATCH_OP, scim, startScim, V2_GROUP, v2Error } from './scim-helpers.ts';

async function allUserNames(sim: Awaited<ReturnType<typeof startScim>>): Promise<Array<{ userName: string; active: boolean }>> {
  const reply = await scim(sim, 'v2', '/Users?count=1000');
  return reply.body.Resources.map((u: { userName: string; active: boolean }) => ({ userName: u.userName, active: u.active }));
}

describe('the directory between polls', () => {
  it('seeds users, guests and groups', async () => {
    const sim = await startScim();
    const seed = await control(sim, 'POST', '/seed', {
      users: 10,
      multiChannelGuests: 2,
      singleChannelGuests: 1,
      groups: [{ displayName: 'staff', members: 7 }],
    });
    expect(seed).toMatchObject({ ok: true, users: 10, groups: [{ displayName: 'staff', members: 7 }] });
    const restricted = await scim(sim, 'v1', `/Users?filter=${encodeURIComponent('restricted eq true')}`);
    expect(restricted.body.totalResults).toBe(2);
    expect((await control(sim, 'GET', '/state')).memberships).toBe(7);
  });

  it('adds, deactivates, reactivates and removes people, and edits membership, as a poll would see it', async () => {
    const sim = await startScim();
    const seed = await control(sim, 'POST', '/seed', { users: 2, groups: [{ displayName: 'eng', members: 2 }] });
    const groupId = seed.groups[0].id;
    expect(await allUserNames(sim)).toEqual([
      { userName: 'user00001', active: true },
      { userName: 'user00002', active: true },
    ]);

    const newcomer = await control(sim, 'POST', '/users', { userName: 'newcomer', email: 'new@example.com', displayName: 'New Comer' });
    await control(sim, 'POST', `/groups/${groupId}/members`, { add: [newcomer.id], remove: [seed.firstUserId] });
    await control(sim, 'POST', `/users/${seed.lastUserId}/deactivate`);
    const group = (await scim(sim, 'v2', `/Groups/${groupId}`)).body;
    expect(group.members).toEqual([{ value: newcomer.id, display: 'New Comer' }]);
    expect(await allUserNames(sim)).toContainEqual({ userName: 'user00002', active: false });

    await control(sim, 'POST', `/users/${seed.lastUserId}/reactivate`);
    await control(sim, 'DELETE', `/users/${seed.firstUserId}`);
    expect(await allUserNames(sim)).toEqual([
      { userName: 'user00002', active: true },
      { userName: 'newcomer', active: true },
    ]);
    expect((await scim(sim, 'v2', `/Users/${seed.firstUserId}`)).status).toBe(404);
  });

  it('answers a bad control request in the one error shape and changes nothing', async () => {
    const sim = await startScim();
    const res = await fetch(`${sim.url}/_sim/seed`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ users: -1 }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, error: 'invalid_request' });
    const dup = await fetch(`${sim.url}/_sim/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ userName: 'x'.repeat(22), email: 'x@example.com' }),
    });
    expect(await dup.json()).toEqual({ ok: false, error: 'username_too_long', detail: 'userName is longer than 21 characters' });
    expect((await control(sim, 'GET', '/state')).users).toBe(0);
  });
});

describe('faults', () => {
  it('a status fault answers the version error body with that status, for the given number of calls', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'status', status: 500, times: 2 });
    expect((await scim(sim, 'v2', '/Users')).body).toEqual(v2Error('internal_error', 500));
    expect((await scim(sim, 'v1', '/Users')).status).toBe(500);
    expect((await scim(sim, 'v2', '/Users')).status).toBe(200);
  });

  it('a rate-limit fault is a burst of 429s with the Retry-After asked for', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/faults', { target: 'groups.get', kind: 'rate-limit', times: 3, retryAfterSeconds: 7 });
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng' });
    for (let i = 0; i < 3; i += 1) {
      const reply = await scim(sim, 'v2', `/Groups/${group.id}`);
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('7');
    }
    expect((await scim(sim, 'v2', `/Groups/${group.id}`)).status).toBe(200);
    expect((await control(sim, 'GET', '/counters'))['groups.get']).toEqual({ requests: 4, rateLimited: 3, faulted: 3 });
  });

  it('a delay fault gives the true answer after the delay asked for', async () => {
    const sim = await startScim();
    const seed = await control(sim, 'POST', '/seed', { users: 2 });
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'delay', delayMs: 400, times: 1 });
    const startedMs = Date.now();
    const reply = await scim(sim, 'v2', `/Users/${seed.firstUserId}`);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(350);
    expect(reply).toMatchObject({ status: 200, body: { id: seed.firstUserId } });
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'delay', delayMs: 60_000, times: 1 });
    await expect(scim(sim, 'v2', `/Users/${seed.firstUserId}`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    await vi.waitFor(() => expect(sim.scim.state.held.size).toBe(0), { timeout: 2000 });
  });

  it('a timeout fault holds the response until the client gives up', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/faults', { target: '*', kind: 'timeout', times: 1 });
    const startedMs = Date.now();
    await expect(scim(sim, 'v2', '/Users', { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(250);
    // The client's abort reaches the server as a closed socket: the held response is let go.
    await vi.waitFor(() => expect(sim.scim.state.held.size).toBe(0), { timeout: 2000 });
    expect((await scim(sim, 'v2', '/Users')).status).toBe(200);
  });

  it('a write still in progress on a user locks it: another write answers 429 with Retry-After, reads and other users go on', async () => {
    const sim = await startScim();
    const [ada, bob] = [await createUser(sim, 'ada'), await createUser(sim, 'bob')];
    await control(sim, 'POST', '/faults', { target: 'users.patch', kind: 'timeout', times: 1 });
    const patch = (id: string, signal?: AbortSignal) =>
      scim(sim, 'v2', `/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 't' }] }, signal });
    const abort = new AbortController();
    const first = patch(ada.id, abort.signal).catch((error: unknown) => error);
    await vi.waitFor(() => expect(sim.scim.state.held.size).toBe(1));
    const locked = await patch(ada.id);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(v2Error('resource_locked', 429));
    expect(locked.headers.get('retry-after')).toBe('1');
    expect((await scim(sim, 'v2', `/Users/${ada.id}`, { method: 'DELETE' })).status).toBe(429);
    expect((await scim(sim, 'v2', `/Users/${ada.id}`)).status).toBe(200);
    expect((await patch(bob.id)).status).toBe(200);
    abort.abort();
    await first;
    await vi.waitFor(() => expect(sim.scim.state.updating.size).toBe(0));
    expect((await patch(ada.id)).status).toBe(200);
  });

  it('closing the sim ends a held response', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'timeout' });
    const user = await createUser(sim, 'ada');
    const pending = scim(sim, 'v2', `/Users/${user.id}`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sim.scim.state.held.size).toBe(1);
    await sim.close();
    await pending;
    expect(sim.scim.state.held.size).toBe(0);
  });
});

describe('counters', () => {
  it('count requests per endpoint across both versions, and reset', async () => {
    const sim = await startScim();
    await scim(sim, 'v2', '/Users');
    await scim(sim, 'v1', '/Users');
    await createUser(sim, 'ada');
    await scim(sim, 'v2', '/Users', { token: null });
    const counters = await control(sim, 'GET', '/counters');
    expect(counters['users.list']).toEqual({ requests: 2, rateLimited: 0, faulted: 0 });
    expect(counters['users.create'].requests).toBe(1);
    // A request refused before routing (no token) is no endpoint's.
    expect(counters.total.requests).toBe(3);
    await control(sim, 'DELETE', '/counters');
    expect((await control(sim, 'GET', '/counters')).total.requests).toBe(0);
  });
});

describe('bounds', () => {
  it('refuses users, groups and memberships past the directory caps', async () => {
    const sim = await startScim({ limits: { maxUsers: 3, maxGroups: 1, maxMemberships: 2 } });
    await control(sim, 'POST', '/seed', { users: 3 });
    const fourth = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'fourth') });
    expect(fourth.status).toBe(507);
    expect(fourth.body.detail).toBe('user_creation_failed');
    const ids = (await scim(sim, 'v2', '/Users')).body.Resources.map((u: { id: string }) => u.id);
    const group = await scim(sim, 'v2', '/Groups', {
      method: 'POST',
      body: { schemas: [V2_GROUP], displayName: 'a', members: [{ value: ids[0] }, { value: ids[1] }] },
    });
    expect(group.status).toBe(201);
    expect((await scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP], displayName: 'b' } })).body.detail).toBe('group_creation_failed');
    const third = await scim(sim, 'v2', `/Groups/${group.body.id}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: ids[2] }] }] },
    });
    expect(third.body.detail).toBe('group_members_create_failed');
    expect((await scim(sim, 'v2', `/Groups/${group.body.id}`)).body.members).toHaveLength(2);
  });

  it('refuses a 101st fault, an oversize body, an overlong filter and too many operations', async () => {
    const sim = await startScim();
    for (let i = 0; i < 100; i += 1) await control(sim, 'POST', '/faults', { target: 'config', kind: 'status', status: 500 });
    await expect(control(sim, 'POST', '/faults', { target: 'config', kind: 'status' })).rejects.toThrow(/400/);
    await control(sim, 'DELETE', '/faults');
    const huge = JSON.stringify({ ...newUser('v2', 'ada'), title: 'x'.repeat(5 * 1024 * 1024) });
    const oversize = await scim(sim, 'v2', '/Users', { method: 'POST', body: huge });
    expect(oversize.status).toBe(413);
    expect(oversize.body.detail).toBe('invalid_request_payload');
    const longFilter = Array.from({ length: 200 }, () => 'username pr').join(' or ');
    expect((await scim(sim, 'v1', `/Users?filter=${encodeURIComponent(longFilter)}`)).body.Errors.description).toBe('invalid_query');
    const user = await createUser(sim, 'ada');
    const ops = Array.from({ length: 1001 }, () => ({ op: 'replace', path: 'title', value: 't' }));
    expect((await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: ops } })).body.detail).toBe(
      'invalid_request_payload',
    );
  });
});
