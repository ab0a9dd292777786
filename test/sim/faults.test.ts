import { describe, expect, it } from 'vitest';
import { FEED_FAULTS_MAX } from '../../src/sim/faults.ts';
import { OVERSIZE_BYTES } from '../../src/sim/oversize-body.ts';
import { getJson, incident, putIncidents, sendJson, setClock, startSim, SUMMER_NOON_MS } from './helpers.ts';
import type { RunningSimulatedVendor } from '../../src/sim/server.ts';

async function addFault(sim: RunningSimulatedVendor, fault: Record<string, unknown>): Promise<void> {
  const res = await sendJson(`${sim.url}/_sim/faults`, 'POST', fault);
  expect(res.status).toBe(201);
}

/** A sim with known contents, so "the real body" is a fixed string. */
async function seeded(): Promise<{ sim: RunningSimulatedVendor; realCurrent: string }> {
  const sim = await startSim();
  await setClock(sim, SUMMER_NOON_MS);
  await putIncidents(sim, [incident({ id: 7, status: 'active', date_created: '2026-07-15T11:00:00-07:00' })]);
  const realCurrent = await (await fetch(`${sim.url}/api/v2.0.0/current`)).text();
  expect(realCurrent.startsWith('{"status":"active"')).toBe(true);
  return { sim, realCurrent };
}

type LogEntry = { path: string; status: number | null; fault: string | null };
const requestLog = async (sim: RunningSimulatedVendor): Promise<LogEntry[]> =>
  ((await getJson(`${sim.url}/_sim/requests`)) as { requests: LogEntry[] }).requests;

describe('faults', () => {
  it('status: answers the given status for `times` requests, counting down in the list', async () => {
    const { sim, realCurrent } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'status', status: 503, times: 2 });
    const first = await fetch(`${sim.url}/api/v2.0.0/current`);
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '1']);
    const state = (await getJson(`${sim.url}/_sim/state`)) as { faults: { kind: string; times: number }[] };
    expect(state.faults).toMatchObject([{ kind: 'status', times: 1 }]);
    expect((await fetch(`${sim.url}/api/v2.0.0/current`)).status).toBe(503);
    const third = await fetch(`${sim.url}/api/v2.0.0/current`);
    expect([third.status, await third.text()]).toEqual([200, realCurrent]);
  });

  it('status defaults to 500 and only hits its target', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v1/current', kind: 'status' });
    expect((await fetch(`${sim.url}/api/current`)).status).toBe(500);
    expect((await fetch(`${sim.url}/api/v1.0.0/current`)).status).toBe(500);
    expect((await fetch(`${sim.url}/api/v2.0.0/current`)).status).toBe(200);
    expect((await fetch(`${sim.url}/api/v2.0.0/history`)).status).toBe(200);
  });

  it('timeout: never answers; the client gives up', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: '*', kind: 'timeout', times: 1 });
    const started = Date.now();
    const outcome = await fetch(`${sim.url}/api/v2.0.0/history`, { signal: AbortSignal.timeout(150) }).then(
      (res) => `answered ${res.status}`,
      (err: Error) => err.name,
    );
    expect(outcome).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await fetch(`${sim.url}/api/v2.0.0/history`)).status).toBe(200);
    expect((await requestLog(sim)).map((r) => [r.status, r.fault])).toEqual([
      [200, null], // the seeding read in seeded()
      [null, 'timeout'],
      [200, null],
    ]);
  });

  it('timeout: close() ends the held connection instead of waiting for it', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'timeout' });
    const pending = fetch(`${sim.url}/api/v2.0.0/current`).then(
      (res) => res.status,
      () => 'connection closed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await sim.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await pending).toBe('connection closed');
  });

  it('slow: headers come at once, the real body trickles in over delayMs', async () => {
    const { sim, realCurrent } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'slow', delayMs: 400 });
    const started = Date.now();
    const res = await fetch(`${sim.url}/api/v2.0.0/current`, { signal: AbortSignal.timeout(3000) });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(300);
    expect(await res.text()).toBe(realCurrent);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('slow: a client with a short timeout fails while reading the body', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'slow', delayMs: 2000 });
    const res = await fetch(`${sim.url}/api/v2.0.0/current`, { signal: AbortSignal.timeout(150) });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('malformed: 200 with a truncated copy of the real body', async () => {
    const { sim, realCurrent } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'malformed' });
    const res = await fetch(`${sim.url}/api/v2.0.0/current`);
    const text = await res.text();
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(realCurrent.startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(realCurrent.length);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('html: a maintenance page instead of JSON', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/history', kind: 'html' });
    const res = await fetch(`${sim.url}/api/v2.0.0/history`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe('<html><body>maintenance</body></html>');
  });

  it('not-feed: valid JSON that is not a feed', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'not-feed' });
    const res = await fetch(`${sim.url}/api/v2.0.0/current`);
    expect([res.status, await res.json()]).toEqual([200, { error: 'rate_limited' }]);
  });

  it('missing: 404 as if the endpoint did not exist', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'missing' });
    const res = await fetch(`${sim.url}/api/v2.0.0/current`);
    expect([res.status, await res.text()]).toEqual([404, '404 Not Found']);
    expect((await fetch(`${sim.url}/api/current`)).status).toBe(200);
  });

  it('oversize: a valid-looking 12 MB feed', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: 'v2/history', kind: 'oversize', times: 1 });
    const res = await fetch(`${sim.url}/api/v2.0.0/history`);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThanOrEqual(OVERSIZE_BYTES);
    const body = (await res.json()) as { id: number; notes: unknown[] }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body[0]).toMatchObject({ id: 1, type: 'incident' });
  });

  it('redirect: one 302 hop to /_sim/redirected/<path>, which serves the real body', async () => {
    const { sim, realCurrent } = await seeded();
    await addFault(sim, { target: 'v2/current', kind: 'redirect', times: 2 });
    const manual = await fetch(`${sim.url}/api/v2.0.0/current`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/_sim/redirected/api/v2.0.0/current');
    const followed = await fetch(`${sim.url}/api/v2.0.0/current`);
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${sim.url}/_sim/redirected/api/v2.0.0/current`);
    expect(await followed.text()).toBe(realCurrent);
    const log = await requestLog(sim);
    expect(log.slice(-2).map((r) => [r.path, r.status])).toEqual([
      ['/api/v2.0.0/current', 302],
      ['/_sim/redirected/api/v2.0.0/current', 200],
    ]);
  });

  it('DELETE /_sim/faults clears every fault', async () => {
    const { sim } = await seeded();
    await addFault(sim, { target: '*', kind: 'status', status: 502 });
    expect((await fetch(`${sim.url}/api/v2.0.0/current`)).status).toBe(502);
    expect((await fetch(`${sim.url}/_sim/faults`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${sim.url}/api/v2.0.0/current`)).status).toBe(200);
  });

  it('stops at FEED_FAULTS_MAX registered faults with a 409, and takes more once cleared', async () => {
    const sim = await startSim();
    for (let i = 0; i < FEED_FAULTS_MAX; i += 1) await addFault(sim, { target: 'v1/history', kind: 'status', times: 1 });
    const refused = await sendJson(`${sim.url}/_sim/faults`, 'POST', { target: 'v1/history', kind: 'status' });
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([409, 'conflict']);
    expect(((await getJson(`${sim.url}/_sim/faults`)) as { faults: unknown[] }).faults).toHaveLength(FEED_FAULTS_MAX);
    expect((await fetch(`${sim.url}/_sim/faults`, { method: 'DELETE' })).status).toBe(200);
    await addFault(sim, { target: 'v1/history', kind: 'status' });
    await sim.close();
  });
});
