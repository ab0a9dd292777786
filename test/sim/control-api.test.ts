import { describe, expect, it } from 'vitest';
import { getJson, incident, sendJson, setClock, startSim, SUMMER_NOON_MS } from './helpers.ts';

type ErrorBody = { ok: boolean; error: string; detail: string };

describe('control API validation', () => {
  it('refuses an incident list with a missing field', async () => {
    const sim = await startSim();
    const { title: _title, ...untitled } = incident({ id: 1, date_created: '2026-07-15T09:00:00-07:00' });
    const res = await sendJson(`${sim.url}/_sim/incidents`, 'PUT', [untitled]);
    const body = (await res.json()) as ErrorBody;
    expect(res.status).toBe(400);
    expect(body).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(body.detail).toContain('0.title');
  });

  it('refuses timestamps without an offset, duplicate ids and bodies that are not JSON', async () => {
    const sim = await startSim();
    const noOffset = await sendJson(`${sim.url}/_sim/incidents`, 'POST', incident({ id: 1, date_created: '2026-07-15T09:00:00' }));
    expect(noOffset.status).toBe(400);
    expect(((await noOffset.json()) as ErrorBody).detail).toContain('date_created');

    const dup = incident({ id: 2, date_created: '2026-07-15T09:00:00-07:00' });
    const dupRes = await sendJson(`${sim.url}/_sim/incidents`, 'PUT', [dup, dup]);
    expect(dupRes.status).toBe(400);
    expect(((await dupRes.json()) as ErrorBody).detail).toContain('duplicate id 2');

    const notJson = await fetch(`${sim.url}/_sim/clock`, { method: 'PUT', body: 'now please' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as ErrorBody).error).toBe('invalid_request');
  });

  it('refuses unknown fault kinds and targets, and bad clocks', async () => {
    const sim = await startSim();
    const cases: [string, string, unknown][] = [
      ['/_sim/faults', 'POST', { target: 'v2/current', kind: 'explode' }],
      ['/_sim/faults', 'POST', { target: 'v3/current', kind: 'status' }],
      ['/_sim/faults', 'POST', { target: '*', kind: 'status', times: 0 }],
      ['/_sim/faults', 'POST', { target: '*', kind: 'redirect', status: 200 }],
      ['/_sim/clock', 'PUT', { nowMs: 'yesterday' }],
    ];
    for (const [path, method, body] of cases) {
      const res = await sendJson(`${sim.url}${path}`, method, body);
      expect([path, res.status]).toEqual([path, 400]);
    }
    const state = (await getJson(`${sim.url}/_sim/state`)) as { faults: unknown[] };
    expect(state.faults).toEqual([]);
  });

  it('answers unknown control routes with a JSON 404', async () => {
    const sim = await startSim();
    const res = await fetch(`${sim.url}/_sim/nothing`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error).toBe('not_found');
  });
});

describe('control API', () => {
  it('upserts one incident by id, accepting a v1-style string id', async () => {
    const sim = await startSim();
    await sendJson(`${sim.url}/_sim/incidents`, 'PUT', []);
    const created = await sendJson(`${sim.url}/_sim/incidents`, 'POST', incident({ id: '42', date_created: '2026-07-15T09:00:00-07:00' }));
    expect([created.status, await created.json()]).toEqual([201, { ok: true, created: true }]);
    const updated = await sendJson(`${sim.url}/_sim/incidents`, 'POST', incident({ id: 42, title: 'Renamed', date_created: '2026-07-15T09:00:00-07:00' }));
    expect([updated.status, await updated.json()]).toEqual([200, { ok: true, created: false }]);
    const state = (await getJson(`${sim.url}/_sim/state`)) as { incidents: { id: number; title: string }[] };
    expect(state.incidents.map((i) => [i.id, i.title])).toEqual([[42, 'Renamed']]);
  });

  it('state round-trips: what GET /_sim/state shows can be PUT back unchanged', async () => {
    const sim = await startSim();
    const before = (await getJson(`${sim.url}/_sim/state`)) as { incidents: unknown[] };
    expect(before.incidents.length).toBeGreaterThanOrEqual(8);
    expect((await sendJson(`${sim.url}/_sim/incidents`, 'PUT', before.incidents)).status).toBe(200);
    const after = (await getJson(`${sim.url}/_sim/state`)) as { incidents: unknown[] };
    expect(after.incidents).toEqual(before.incidents);
  });

  it('fixes the clock and returns to real time', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    expect(((await getJson(`${sim.url}/_sim/state`)) as { nowMs: number }).nowMs).toBe(SUMMER_NOON_MS);
    const res = await fetch(`${sim.url}/_sim/clock`, { method: 'DELETE' });
    expect(Math.abs(((await res.json()) as { nowMs: number }).nowMs - Date.now())).toBeLessThan(5000);
  });

  it('logs feed requests (not control ones) and clears the log', async () => {
    const sim = await startSim();
    await fetch(`${sim.url}/api/current?cb=1`);
    await fetch(`${sim.url}/api/v2.0.0/current`, { headers: { 'If-None-Match': '"nope"' } });
    const log = (await getJson(`${sim.url}/_sim/requests`)) as {
      requests: { method: string; path: string; status: number; ifNoneMatch: boolean; atMs: number }[];
    };
    expect(log.requests.map((r) => [r.method, r.path, r.status, r.ifNoneMatch])).toEqual([
      ['GET', '/api/current?cb=1', 200, false],
      ['GET', '/api/v2.0.0/current', 200, true],
    ]);
    expect(typeof log.requests[0]?.atMs).toBe('number');
    await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    expect(((await getJson(`${sim.url}/_sim/requests`)) as { requests: unknown[] }).requests).toEqual([]);
  });
});
