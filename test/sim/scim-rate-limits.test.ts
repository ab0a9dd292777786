/** The spec's SCIM rate-limit table: bursts accepted, 429 with Retry-After beyond, org-wide and per-endpoint rows. */
import { describe, expect, it } from 'vitest';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { control, newUser, PATCH_OP, scim, startScim, V2_GROUP, v2Error } from './scim-helpers.ts';

/** Sends `n` calls one after another and returns their statuses. */
async function statuses(n: number, call: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push((await call(i)).status);
  return out;
}

const okCount = (list: number[]) => list.filter((s) => s < 400).length;

async function seeded(users: number, groups = 0): Promise<{ sim: RunningSimulatedScim; first: string; groupIds: string[] }> {
  const sim = await startScim();
  const seed = await control(sim, 'POST', '/seed', { users, groups: Array.from({ length: groups }, (_, i) => ({ displayName: `g${i}`, members: 1 })) });
  return { sim, first: seed.firstUserId, groupIds: seed.groups.map((g: { id: string }) => g.id) };
}

describe('SCIM rate limits', () => {
  it('POST /Users: a burst of 20 passes, the 21st is 429 with Retry-After, and waiting that long lets the next through', async () => {
    const sim = await startScim();
    const burst = await statuses(20, (i) => scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', `u${i}`) }));
    expect(burst.every((s) => s === 201)).toBe(true);
    const refused = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'u20') });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(v2Error('too_many_requests', 429));
    const retryAfterSeconds = Number(refused.headers.get('retry-after'));
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // 180 a minute is 3 a second: after the advised wait, the steady rate lets one more through.
    await control(sim, 'POST', '/clock/advance', { ms: retryAfterSeconds * 1000 });
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'u20') })).status).toBe(201);
    // A minute later the burst is back.
    await control(sim, 'POST', '/clock/advance', { ms: 60_000 });
    expect(okCount(await statuses(21, (i) => scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', `w${i}`) })))).toBe(20);
    // A refused call is not created.
    expect((await control(sim, 'GET', '/state')).users).toBe(41);
  });

  it('a refused call draws nothing: after a run of 429s, the advised wait is still enough', async () => {
    const { sim, first } = await seeded(1);
    await statuses(20, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' }));
    const refused = await statuses(10, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' }));
    expect(refused.every((s) => s === 429)).toBe(true);
    await control(sim, 'POST', '/clock/advance', { ms: 1000 });
    expect((await scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('PUT and PATCH /Users/<id> share one row of 180 a minute with a burst of 20', async () => {
    const { sim, first } = await seeded(1);
    const put = await statuses(10, () =>
      scim(sim, 'v2', `/Users/${first}`, { method: 'PUT', body: newUser('v2', 'user00001', { emails: [{ value: 'user00001@example.com' }] }) }),
    );
    const patch = await statuses(11, () =>
      scim(sim, 'v2', `/Users/${first}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 't' }] } }),
    );
    expect(okCount(put) + okCount(patch)).toBe(20);
    expect(patch.at(-1)).toBe(429);
  });

  it('DELETE /Users/<id>: burst of 20', async () => {
    const { sim, first } = await seeded(1);
    expect(okCount(await statuses(21, () => scim(sim, 'v1', `/Users/${first}`, { method: 'DELETE' })))).toBe(20);
  });

  it('GET /Users/<id>: burst of 300', async () => {
    const { sim, first } = await seeded(1);
    const list = await statuses(301, () => scim(sim, 'v2', `/Users/${first}`));
    expect(okCount(list)).toBe(300);
    expect(list.at(-1)).toBe(429);
  });

  it('GET /Groups/<id>: burst of 300', async () => {
    const { sim, groupIds } = await seeded(1, 1);
    expect(okCount(await statuses(301, () => scim(sim, 'v2', `/Groups/${groupIds[0]}`)))).toBe(300);
  });

  it('POST and DELETE /Groups: bursts of 20; PUT or PATCH /Groups/<id>: burst of 80', async () => {
    const { sim, groupIds } = await seeded(1, 21);
    expect(okCount(await statuses(21, (i) => scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP], displayName: `new${i}` } })))).toBe(20);
    expect(okCount(await statuses(21, (i) => scim(sim, 'v2', `/Groups/${groupIds[i]}`, { method: 'DELETE' })))).toBe(20);
    const update = await statuses(81, (i) =>
      scim(sim, 'v2', `/Groups/${groupIds[20]}`, {
        method: i % 2 ? 'PUT' : 'PATCH',
        body: i % 2 ? { schemas: [V2_GROUP], displayName: 'g20' } : { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members' }] },
      }),
    );
    expect(okCount(update)).toBe(80);
  });

  it('all reads share 1000: GET /Users/<id> and /Groups/<id> draw from it as well as from their own rows', async () => {
    const { sim, first, groupIds } = await seeded(1, 1);
    const users = await statuses(300, () => scim(sim, 'v2', `/Users/${first}`));
    const groups = await statuses(300, () => scim(sim, 'v2', `/Groups/${groupIds[0]}`));
    const lists = await statuses(401, () => scim(sim, 'v2', '/Users?count=1'));
    expect(okCount(users) + okCount(groups)).toBe(600);
    // 600 reads spent: the list endpoints (no row of their own) get the 400 left of the 1000.
    expect(okCount(lists)).toBe(400);
    expect(lists.at(-1)).toBe(429);
  }, 60_000);

  it('all writes share 180 a minute, whatever the endpoint', async () => {
    const { sim, first, groupIds } = await seeded(2, 40);
    const statusesAll: number[] = [];
    statusesAll.push(...(await statuses(20, (i) => scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', `n${i}`) }))));
    statusesAll.push(
      ...(await statuses(20, () =>
        scim(sim, 'v2', `/Users/${first}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 'x' }] } }),
      )),
    );
    statusesAll.push(...(await statuses(20, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' }))));
    statusesAll.push(...(await statuses(20, (i) => scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP], displayName: `ng${i}` } }))));
    statusesAll.push(...(await statuses(20, (i) => scim(sim, 'v2', `/Groups/${groupIds[i]}`, { method: 'DELETE' }))));
    statusesAll.push(
      ...(await statuses(80, () =>
        scim(sim, 'v2', `/Groups/${groupIds[39]}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members' }] } }),
      )),
    );
    expect(okCount(statusesAll)).toBe(180);
    // Two seconds later each endpoint row has 6 tokens again (180 a minute), 24 in all, but the
    // writes row has only 20 (600 a minute): the org-wide row decides.
    await control(sim, 'POST', '/clock/advance', { ms: 2_000 });
    const after: number[] = [];
    after.push(...(await statuses(6, (i) => scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', `m${i}`) }))));
    after.push(
      ...(await statuses(6, () =>
        scim(sim, 'v2', `/Users/${first}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 'y' }] } }),
      )),
    );
    after.push(...(await statuses(6, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' }))));
    after.push(...(await statuses(6, (i) => scim(sim, 'v2', '/Groups', { method: 'POST', body: { schemas: [V2_GROUP], displayName: `mg${i}` } }))));
    expect(okCount(after)).toBe(20);
    expect(after.slice(-4)).toEqual([429, 429, 429, 429]);
  }, 60_000);

  it('counts 429s per endpoint in the control API, and can be switched off', async () => {
    const { sim, first } = await seeded(1);
    await statuses(22, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' }));
    const counters = await control(sim, 'GET', '/counters');
    expect(counters['users.delete']).toEqual({ requests: 22, rateLimited: 2, faulted: 0 });
    await control(sim, 'PUT', '/rate-limits', { enabled: false });
    expect(okCount(await statuses(30, () => scim(sim, 'v2', `/Users/${first}`, { method: 'DELETE' })))).toBe(30);
  });
});
