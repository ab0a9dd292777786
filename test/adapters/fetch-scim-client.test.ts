/** The SCIM client against the simulated directory over real HTTP: versions, paging, rate limits, faults and error codes. */
import { describe, expect, it } from 'vitest';
import { createScimClient, type ScimClientOptions } from '../../src/adapters/fetch-scim-client.ts';
import { ScimCallError } from '../../src/core/scim-errors.ts';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { control, FIXED_NOW_MS, startScim } from '../sim/scim-helpers.ts';

/** A clock the client's waits move forward; the sim reads the same clock, so its buckets refill as the client waits. */
function fakeTime(startMs = FIXED_NOW_MS) {
  let nowMs = startMs;
  const slept: number[] = [];
  return {
    clock: { now: () => nowMs },
    sleep: async (ms: number) => {
      slept.push(ms);
      nowMs += ms;
    },
    slept,
  };
}

/** A client of `sim` that records the paths it asked for (an observer around the real fetch, not a stand-in). */
function clientOf(sim: RunningSimulatedScim, time = fakeTime(), options: Partial<ScimClientOptions> = {}) {
  const paths: string[] = [];
  const client = createScimClient({
    baseUrl: sim.url,
    token: sim.token,
    clock: time.clock,
    sleep: time.sleep,
    fetch: (input, init) => {
      paths.push(new URL(String(input)).pathname + new URL(String(input)).search);
      return fetch(input, init);
    },
    ...options,
  });
  return { client, paths, time };
}

async function seededSim(users: number, groups: { displayName: string; members: number }[] = [], time = fakeTime()) {
  const sim = await startScim({ clock: time.clock.now });
  const seed = await control(sim, 'POST', '/seed', { users, groups });
  return { sim, seed, time };
}

async function failure(promise: Promise<unknown>): Promise<ScimCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ScimCallError) return error;
    throw error;
  }
  throw new Error('expected a ScimCallError');
}

describe('SCIM client', () => {
  it('speaks v2.0 first, and v1.1 from the first call on when v2.0 answers unsupported_version', async () => {
    const { sim, seed } = await seededSim(3, [{ displayName: 'Ops', members: 2 }]);
    const v2 = clientOf(sim);
    expect(await v2.client.version()).toBe('v2');
    expect((await v2.client.group(seed.groups[0].id))?.memberIds).toHaveLength(2);
    expect(v2.paths.every((p) => p.startsWith('/scim/v2/'))).toBe(true);

    await control(sim, 'PUT', '/versions', { v2: false });
    const v1 = clientOf(sim);
    const group = await v1.client.group(seed.groups[0].id);
    expect(group).toEqual({ id: seed.groups[0].id, displayName: 'Ops', memberIds: [seed.firstUserId, expect.any(String)], skipped: [] });
    expect(await v1.client.version()).toBe('v1');
    expect((await v1.client.user(seed.firstUserId))?.email).toBe('user00001@example.com');
    expect(v1.paths).toEqual([`/scim/v2/Groups/${seed.groups[0].id}`, `/scim/v1/Groups/${seed.groups[0].id}`, `/scim/v1/Users/${seed.firstUserId}`]);
  });

  it('reads a user as the sync needs it: primary email, active, time zone, display name', async () => {
    const { sim, seed } = await seededSim(2);
    const { client } = clientOf(sim);
    await control(sim, 'POST', `/users/${seed.lastUserId}/deactivate`);
    expect(await client.user(seed.firstUserId)).toEqual({
      id: seed.firstUserId,
      email: 'user00001@example.com',
      active: true,
      timeZone: null,
      displayName: 'User 00001',
    });
    expect((await client.user(seed.lastUserId))?.active).toBe(false);
    expect(await client.user('U0NOBODY')).toBeNull();
  });

  it('pages by totalResults, never trusting a short page, with count at most 1000', async () => {
    const { sim } = await seededSim(
      30,
      Array.from({ length: 12 }, (_, i) => ({ displayName: `Team ${i}`, members: 1 })),
    );
    await control(sim, 'PUT', '/short-pages', { groups: 4, users: 7 });
    const { client, paths } = clientOf(sim);
    expect((await client.groupByName('Team 11'))?.displayName).toBe('Team 11');
    expect(paths).toEqual(['/scim/v2/Groups/?startIndex=1&count=1000', '/scim/v2/Groups/?startIndex=5&count=1000', '/scim/v2/Groups/?startIndex=9&count=1000']);
    expect(await client.groupByName('Team 12')).toBeNull();
    const page = await client.usersPage(1, 5000);
    expect(page.users).toHaveLength(7);
    expect(page.totalResults).toBe(30);
    expect(paths.at(-1)).toBe('/scim/v2/Users?startIndex=1&count=1000');
  });

  it('calls an empty page before totalResults a missing page, not the end', async () => {
    const { sim } = await seededSim(3, [
      { displayName: 'A', members: 1 },
      { displayName: 'B', members: 1 },
    ]);
    await control(sim, 'PUT', '/short-pages', { groups: 1 });
    await control(sim, 'POST', '/faults', { target: 'groups.list', kind: 'missing-page', startIndex: 2 });
    const { client } = clientOf(sim);
    const error = await failure(client.groupByName('B'));
    expect(error.code).toBe('missing_page');
    expect(error.retryable).toBe(true);
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'missing-page', startIndex: 1, times: 1 });
    expect((await failure(client.usersPage(1, 1000))).code).toBe('missing_page');
  });

  it('waits as Retry-After says, and gives up when the wait is beyond its patience', async () => {
    const { sim, seed } = await seededSim(1);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'rate-limit', retryAfterSeconds: 3, times: 2 });
    const { client, time } = clientOf(sim);
    expect((await client.user(seed.firstUserId))?.id).toBe(seed.firstUserId);
    expect(time.slept).toEqual([3000, 3000]);
    expect(client.stats()).toMatchObject({ requests: 3, retryAfterMs: 6000 });

    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'rate-limit', retryAfterSeconds: 120 });
    const error = await failure(client.user(seed.firstUserId));
    expect(error).toMatchObject({ code: 'too_many_requests', status: 429, retryable: true, meaning: 'too many requests in a short period' });
  });

  it('keeps under the per-endpoint limits itself: 400 GET /Users/<id> in a row, and the directory never says 429', async () => {
    const { sim, seed, time } = await seededSim(1);
    const { client } = clientOf(sim, time);
    for (let i = 0; i < 400; i += 1) await client.user(seed.firstUserId);
    const counters = await control(sim, 'GET', '/counters');
    expect(counters['users.get']).toMatchObject({ requests: 400, rateLimited: 0 });
    // The burst of 300 goes at once; the next 100 at the row's 300 a minute, 200 ms apart.
    expect(client.stats().pacedMs).toBeGreaterThanOrEqual(99 * 200);
    expect(client.stats().retryAfterMs).toBe(0);
  });

  it('tries a 500 once more, then fails retryable with the code the body carries', async () => {
    const { sim, seed } = await seededSim(1);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'status', status: 500, times: 1 });
    const { client } = clientOf(sim);
    expect((await client.user(seed.firstUserId))?.id).toBe(seed.firstUserId);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'status', status: 503, times: 2 });
    const error = await failure(client.user(seed.firstUserId));
    expect(error).toMatchObject({ status: 503, retryable: true });
  });

  it('gives up on a directory that does not answer within its timeout', async () => {
    const { sim, seed } = await seededSim(1);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'timeout', times: 1 });
    const { client } = clientOf(sim, fakeTime(), { timeoutMs: 300 });
    const error = await failure(client.user(seed.firstUserId));
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
  });

  it("keeps each refusal's code with the spec's meaning", async () => {
    const { sim, seed } = await seededSim(1);
    const wrongToken = createScimClient({ baseUrl: sim.url, token: 'xoxp-wrong', clock: fakeTime().clock });
    expect(await failure(wrongToken.user(seed.firstUserId))).toMatchObject({
      code: 'invalid_authentication',
      status: 401,
      retryable: false,
      meaning: expect.stringContaining('problem with the OAuth token'),
    });
    for (const refuse of ['plus_teams_only', 'non_org_teams_only', 'permission_denied'] as const) {
      await control(sim, 'PUT', '/workspace', { refuse });
      const error = await failure(clientOf(sim).client.user(seed.firstUserId));
      expect(error.code).toBe(refuse);
      expect(error.message).toContain(error.meaning);
    }
    await control(sim, 'PUT', '/workspace', { refuse: null });
    await control(sim, 'PUT', '/versions', { v1: false, v2: false });
    expect(await failure(clientOf(sim).client.version())).toMatchObject({ code: 'unsupported_version', meaning: 'SCIM version not supported' });
  });

  it('never follows a redirect: the token would go with it', async () => {
    const { sim, seed } = await seededSim(2);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'redirect', times: 1 });
    const { client, paths } = clientOf(sim);
    // Followed, it would have gone to elsewhere.invalid and failed to connect, not answered 302.
    expect(await failure(client.user(seed.firstUserId))).toMatchObject({ code: 'http_302', retryable: false });
    expect(paths).toEqual([`/scim/v2/Users/${seed.firstUserId}`]);
  });

  it('refuses an answer that is not the shape the spec gives', async () => {
    const { sim } = await seededSim(2);
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'body', body: '{"totalResults":"many","Resources":[]}' });
    expect(await failure(clientOf(sim).client.usersPage(1, 10))).toMatchObject({ code: 'malformed', retryable: false });
    await control(sim, 'DELETE', '/faults');
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'body', body: '<html>gateway</html>' });
    expect(await failure(clientOf(sim).client.usersPage(1, 10))).toMatchObject({ code: 'malformed', retryable: false });
  });

  it('counts what each bounded view made on its own, and all of it on the client', async () => {
    const { sim, seed } = await seededSim(5);
    const { client } = clientOf(sim);
    const budget = () => ({ signal: new AbortController().signal, maxBytes: 1_000_000 });
    const [one, two] = [client.bounded(budget()), client.bounded(budget())];
    // Side by side, as two syncs run: one makes a version probe and a user read, the other three reads.
    await Promise.all([
      one.user(seed.firstUserId),
      (async () => {
        for (let i = 0; i < 3; i++) await two.usersPage(1, 2);
      })(),
    ]);
    const [mine, theirs, all] = [one.stats().requests, two.stats().requests, client.stats().requests];
    expect(mine + theirs).toBe(all);
    expect(theirs).toBeGreaterThanOrEqual(3);
    expect(mine).toBeGreaterThanOrEqual(1);
    expect(mine).toBeLessThan(all);
  });

  it('a bounded view ends at its signal, a Retry-After wait included, and reads at most its bytes in all', async () => {
    const { sim, seed } = await seededSim(30);
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'rate-limit', retryAfterSeconds: 30, times: 1 });
    // The real sleep: the 30 s the directory asks for is cut short by the view's deadline.
    const client = createScimClient({ baseUrl: sim.url, token: sim.token, clock: fakeTime().clock });
    const startedMs = Date.now();
    const error = await failure(client.bounded({ signal: AbortSignal.timeout(300), maxBytes: 1_000_000 }).user(seed.firstUserId));
    expect(error).toMatchObject({ code: 'deadline', retryable: true });
    expect(Date.now() - startedMs).toBeLessThan(5_000);

    const stop = new AbortController();
    stop.abort();
    expect(await failure(client.bounded({ signal: stop.signal, maxBytes: 1_000_000 }).user(seed.firstUserId))).toMatchObject({ code: 'stopped' });

    const bounded = client.bounded({ signal: new AbortController().signal, maxBytes: 5_000 });
    expect((await bounded.user(seed.firstUserId))?.id).toBe(seed.firstUserId);
    expect(await failure(bounded.usersPage(1, 30))).toMatchObject({ code: 'over_budget' });
    // The budget is the view's: the client itself reads on.
    expect((await client.usersPage(1, 30)).users).toHaveLength(30);
  });

  it('lists groups at /Groups where /Groups/ is a 404, and from then on only there', async () => {
    const { sim } = await seededSim(3, [
      { displayName: 'A', members: 1 },
      { displayName: 'B', members: 1 },
    ]);
    await control(sim, 'PUT', '/rfc', { trailingSlash404: true, plainErrors: true });
    const { client, paths } = clientOf(sim);
    expect((await client.groupByName('B'))?.displayName).toBe('B');
    expect(await client.groupByName('C')).toBeNull();
    expect(paths).toEqual(['/scim/v2/Groups/?startIndex=1&count=1000', '/scim/v2/Groups?startIndex=1&count=1000', '/scim/v2/Groups?startIndex=1&count=1000']);
  });

  it('takes a plain RFC 7644 404 of a group, confirmed once more while the groups answer, for a deleted group; the vendor code at once', async () => {
    const { sim, seed } = await seededSim(3, [{ displayName: 'A', members: 1 }]);
    const id: string = seed.groups[0].id;
    await control(sim, 'DELETE', `/groups/${id}`);
    const vendor = clientOf(sim);
    expect(await vendor.client.group(id)).toBeNull();
    expect(vendor.paths).toEqual([`/scim/v2/Groups/${id}`]);

    await control(sim, 'PUT', '/rfc', { plainErrors: true });
    const rfc = clientOf(sim);
    expect(await rfc.client.group(id)).toBeNull();
    expect(rfc.paths).toEqual([`/scim/v2/Groups/${id}`, `/scim/v2/Groups/${id}`, '/scim/v2/Groups/?startIndex=1&count=1']);

    // A 404 that does not hold the second time is no deleted group: the first failure stands.
    const seedAgain = await control(sim, 'POST', '/seed', { users: 3, groups: [{ displayName: 'B', members: 1 }] });
    await control(sim, 'POST', '/faults', { target: 'groups.get', kind: 'status', status: 404, times: 1 });
    const once = await failure(clientOf(sim).client.group(seedAgain.groups[0].id));
    expect(once).toMatchObject({ code: 'http_404', status: 404 });
    expect(once.message).toContain('The service met a condition it did not expect (HTTP 404)');
  });

  it('keeps the whole text of an error beside its code', async () => {
    const { sim, seed } = await seededSim(1);
    await control(sim, 'PUT', '/rfc', { plainErrors: true });
    const error = await failure(clientOf(sim).client.user('not a user id'));
    expect(error).toMatchObject({ code: 'http_400', status: 400 });
    expect(error.message).toContain('"not a user id" is not a user id');
    expect((await clientOf(sim).client.user(seed.firstUserId))?.id).toBe(seed.firstUserId);
  });
  it('reads half a surrogate pair in the directory’s text as one U+FFFD, and skips a record whose id holds one', async () => {
    // JSON may carry "\ud800", which UTF-8 cannot: text is made well formed as it is read; an id is
    // a key, and two ids repaired could become one, so its record is skipped with the reason.
    const { sim, seed } = await seededSim(3);
    const list = await (await fetch(`${sim.url}/scim/v2/Users?startIndex=1&count=10`, { headers: { Authorization: `Bearer ${sim.token}` } })).json();
    list.Resources[0].displayName = 'Ann \ud800 Lee';
    list.Resources[0].timezone = 'Europe/Berlin\udc00';
    list.Resources[1].displayName = '';
    list.Resources[1].userName = 'bob\udfff';
    list.Resources[1].emails = [{ value: 'bob\ud800@example.com', primary: true }];
    list.Resources[2].id = 'U\ud800';
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'body', times: 1, body: JSON.stringify(list) });
    const page = await clientOf(sim).client.usersPage(1, 10);
    expect(page.users.map((u) => [u.id, u.displayName, u.timeZone])).toEqual([
      [seed.firstUserId, 'Ann \ufffd Lee', 'Europe/Berlin\ufffd'],
      [expect.any(String), 'bob\ufffd', null],
    ]);
    expect(page.users[1]).toMatchObject({ email: null, refusedEmail: 'bob\ufffd@example.com' });
    expect(page.skipped).toEqual([{ userId: null, reason: 'id: not well-formed text (holds half a surrogate pair)' }]);

    // An error's text, kept beside its code, too.
    await control(sim, 'POST', '/faults', { target: 'users.get', kind: 'body', status: 400, times: 1, body: '{"detail":"invalid_request \\ud800"}' });
    const error = await failure(clientOf(sim).client.user(seed.firstUserId));
    expect(error.message).toContain('invalid_request \ufffd');
    expect(error.message).not.toMatch(/\ufffd\ufffd|[\ud800-\udfff]/);
  });
});
