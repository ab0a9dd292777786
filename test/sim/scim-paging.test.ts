/** Paging of the list endpoints: startIndex/count/totalResults, the 1000 cap, sort order, short and missing pages. */
import { describe, expect, it } from 'vitest';
import { control, scim, startScim, V1_CORE } from './scim-helpers.ts';

describe('GET /Users paging', () => {
  it('answers 10 users by default with totalResults, itemsPerPage and startIndex', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 25 });
    const reply = await scim(sim, 'v2', '/Users');
    expect(reply.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 25, itemsPerPage: 10, startIndex: 1 });
    expect(reply.body.Resources).toHaveLength(10);
    const v1 = await scim(sim, 'v1', '/Users');
    expect(v1.body.schemas).toEqual([V1_CORE]);
    expect(v1.body.totalResults).toBe(25);
  });

  it('walks every user exactly once with startIndex (1-based) and count', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 23 });
    const seen: string[] = [];
    for (let start = 1; start <= 23; start += 7) {
      const page = await scim(sim, 'v2', `/Users?startIndex=${start}&count=7`);
      expect(page.body.startIndex).toBe(start);
      seen.push(...page.body.Resources.map((u: { id: string }) => u.id));
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
  });

  it('caps count at 1000 and answers past the end with no Resources but the true total', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 1200 });
    const big = await scim(sim, 'v2', '/Users?count=5000');
    expect(big.body.itemsPerPage).toBe(1000);
    const past = await scim(sim, 'v2', '/Users?startIndex=1201&count=10');
    expect(past.body).toMatchObject({ totalResults: 1200, itemsPerPage: 0, Resources: [] });
    const zero = await scim(sim, 'v2', '/Users?count=0');
    expect(zero.body).toMatchObject({ totalResults: 1200, itemsPerPage: 0 });
  });

  it('adjusts a startIndex below 1 to 1', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 3 });
    expect((await scim(sim, 'v2', '/Users?startIndex=0')).body).toMatchObject({ startIndex: 1, itemsPerPage: 3 });
    expect((await scim(sim, 'v2', '/Users?startIndex=-5')).body.startIndex).toBe(1);
  });

  it('sorts ascending or descending; any other sortOrder is invalid_sort_order', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 3 });
    const up = (await scim(sim, 'v2', '/Users?sortOrder=ascending')).body.Resources.map((u: { userName: string }) => u.userName);
    const down = (await scim(sim, 'v2', '/Users?sortOrder=descending')).body.Resources.map((u: { userName: string }) => u.userName);
    expect(up).toEqual(['user00001', 'user00002', 'user00003']);
    expect(down).toEqual(['user00003', 'user00002', 'user00001']);
    expect((await scim(sim, 'v2', '/Users?sortOrder=sideways')).body.detail).toBe('invalid_sort_order');
  });
});

describe('short and missing pages', () => {
  it('a short page has fewer than count while more remain; paging by totalResults still sees everyone', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', {
      users: 30,
      groups: [
        { displayName: 'g1', members: 1 },
        { displayName: 'g2', members: 1 },
        { displayName: 'g3', members: 1 },
      ],
    });
    await control(sim, 'PUT', '/short-pages', { users: 4, groups: 1 });
    const first = await scim(sim, 'v2', '/Users?count=10');
    expect(first.body).toMatchObject({ totalResults: 30, itemsPerPage: 4 });
    const seen: string[] = [];
    let start = 1;
    while (start <= 30) {
      const page = await scim(sim, 'v2', `/Users?startIndex=${start}&count=10`);
      seen.push(...page.body.Resources.map((u: { id: string }) => u.id));
      start += page.body.itemsPerPage;
    }
    expect(new Set(seen).size).toBe(30);
    expect((await scim(sim, 'v1', '/Groups?count=10')).body).toMatchObject({ totalResults: 3, itemsPerPage: 1 });
    await control(sim, 'PUT', '/short-pages', {});
    expect((await scim(sim, 'v2', '/Users?count=10')).body.itemsPerPage).toBe(10);
  });

  it('a missing page answers no Resources at one startIndex, once, while totalResults says more remain', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 30 });
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'missing-page', startIndex: 11, times: 1 });
    expect((await scim(sim, 'v2', '/Users?startIndex=1&count=10')).body.itemsPerPage).toBe(10);
    expect((await scim(sim, 'v2', '/Users?startIndex=11&count=10')).body).toMatchObject({ totalResults: 30, itemsPerPage: 0, Resources: [] });
    expect((await scim(sim, 'v2', '/Users?startIndex=11&count=10')).body.itemsPerPage).toBe(10);
  });

  it('an endless fault answers full pages at any startIndex, totalResults always a page ahead or the lie it was given', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 3 });
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'endless' });
    const far = await scim(sim, 'v2', '/Users?startIndex=5001&count=1000');
    expect(far.body).toMatchObject({ totalResults: 7000, itemsPerPage: 1000, startIndex: 5001 });
    expect(far.body.Resources[0]).toMatchObject({ id: 'UEND5001', active: true, emails: [{ value: 'endless5001@example.com', primary: true }] });
    await control(sim, 'DELETE', '/faults');
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'endless', totalResults: 10_000_000 });
    expect((await scim(sim, 'v2', '/Users?startIndex=1&count=10')).body).toMatchObject({ totalResults: 10_000_000, itemsPerPage: 10 });
    // Only lists: one user is still itself.
    expect((await scim(sim, 'v2', `/Users/${far.body.Resources[0].id}`)).status).toBe(404);
  });

  it('an endless page is as short as the short pages say, and still never the last', async () => {
    const sim = await startScim();
    await control(sim, 'POST', '/seed', { users: 3 });
    await control(sim, 'PUT', '/short-pages', { users: 5 });
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'endless' });
    const page = (await scim(sim, 'v2', '/Users?startIndex=5001&count=1000')).body;
    expect(page).toMatchObject({ totalResults: 7000, itemsPerPage: 5, startIndex: 5001 });
    expect(page.Resources.map((r: { id: string }) => r.id)).toEqual(['UEND5001', 'UEND5002', 'UEND5003', 'UEND5004', 'UEND5005']);
  });
});
