import { describe, expect, it } from 'vitest';
import { getJson, incident, putIncidents, setClock, startSim, SUMMER_NOON_MS } from './helpers.ts';

const ACTIVE = incident({
  id: 1579,
  title: 'Message failures',
  status: 'active',
  date_created: '2026-07-15T05:39:35-07:00',
  date_updated: '2026-07-15T07:31:24-07:00',
});
const OLD = incident({ id: 1575, date_created: '2026-07-10T08:00:00-07:00', date_updated: '2026-07-10T09:00:00-07:00' });
const NEWER_RESOLVED = incident({ id: 1578, date_created: '2026-07-12T08:00:00-07:00', date_updated: '2026-07-12T08:40:00-07:00' });

describe('v2 current', () => {
  it('ok: empty active_incidents and the dates of the most recently created incident', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [OLD, NEWER_RESOLVED]);
    const text = await (await fetch(`${sim.url}/api/v2.0.0/current`)).text();
    expect(text).toBe('{"status":"ok","date_created":"2026-07-12T08:00:00-07:00","date_updated":"2026-07-12T08:40:00-07:00","active_incidents":[]}');
  });

  it('active: lists the ongoing incident with its dates at the top level', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [OLD, ACTIVE, NEWER_RESOLVED]);
    const body = (await getJson(`${sim.url}/api/v2.0.0/current`)) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['status', 'date_created', 'date_updated', 'active_incidents']);
    expect(body.status).toBe('active');
    expect(body.date_created).toBe('2026-07-15T05:39:35-07:00');
    expect(body.date_updated).toBe('2026-07-15T07:31:24-07:00');
    expect((body.active_incidents as { id: number }[]).map((i) => i.id)).toEqual([1579]);
  });
});

describe('v1 current', () => {
  it('is the flat most urgent incident at both v1 paths, with a string id', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    const notice = incident({ id: 1580, type: 'notice', status: 'active', date_created: '2026-07-15T11:00:00-07:00' });
    const outage = incident({ id: 1581, type: 'outage', status: 'active', date_created: '2026-07-14T11:00:00-07:00' });
    await putIncidents(sim, [notice, ACTIVE, outage]);
    for (const path of ['/api/v1.0.0/current', '/api/current']) {
      const body = (await getJson(`${sim.url}${path}`)) as Record<string, unknown>;
      expect(body.id).toBe('1581');
      expect(body.type).toBe('outage');
      expect(body).not.toHaveProperty('active_incidents');
    }
  });

  it('shows a recently resolved incident, then the terse ok an hour later', async () => {
    const sim = await startSim();
    await setClock(sim, Date.parse('2026-07-12T09:30:00-07:00'));
    await putIncidents(sim, [OLD, NEWER_RESOLVED]);
    const recent = (await getJson(`${sim.url}/api/current`)) as Record<string, unknown>;
    expect([recent.id, recent.status]).toEqual(['1578', 'resolved']);
    await setClock(sim, Date.parse('2026-07-12T09:41:00-07:00'));
    expect(await (await fetch(`${sim.url}/api/current`)).text()).toBe(
      '{"status":"ok","date_created":"2026-07-12T08:00:00-07:00","date_updated":"2026-07-12T08:40:00-07:00"}',
    );
  });
});

describe('history', () => {
  it('is a bare array sorted by date_updated, within the rolling window', async () => {
    const sim = await startSim({ historyWindowDays: 30 });
    await setClock(sim, SUMMER_NOON_MS);
    const ancient = incident({ id: 1500, date_created: '2026-05-01T08:00:00-07:00' });
    const lateUpdate = incident({ id: 1574, date_created: '2026-07-01T08:00:00-07:00', date_updated: '2026-07-13T08:00:00-07:00' });
    await putIncidents(sim, [OLD, ancient, ACTIVE, lateUpdate, NEWER_RESOLVED]);
    const body = (await getJson(`${sim.url}/api/v2.0.0/history`)) as { id: number }[];
    expect(body.map((i) => i.id)).toEqual([1579, 1574, 1578, 1575]);
  });
});

describe('conditional requests', () => {
  it('sends a strong ETag and Last-Modified, and answers If-None-Match with 304', async () => {
    const sim = await startSim();
    await setClock(sim, SUMMER_NOON_MS);
    await putIncidents(sim, [OLD, NEWER_RESOLVED]);
    const first = await fetch(`${sim.url}/api/v2.0.0/history`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('last-modified')).toBe('Sun, 12 Jul 2026 15:40:00 GMT');
    const again = await fetch(`${sim.url}/api/v2.0.0/history`, { headers: { 'If-None-Match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);

    await putIncidents(sim, [OLD, NEWER_RESOLVED, ACTIVE]);
    const changed = await fetch(`${sim.url}/api/v2.0.0/history`, { headers: { 'If-None-Match': etag ?? '' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);

    const log = (await getJson(`${sim.url}/_sim/requests`)) as { requests: { ifNoneMatch: boolean; status: number }[] };
    expect(log.requests.map((r) => [r.ifNoneMatch, r.status])).toEqual([
      [false, 200],
      [true, 304],
      [true, 200],
    ]);
  });

  it('honours If-Modified-Since when no ETag is sent', async () => {
    const sim = await startSim();
    await putIncidents(sim, [OLD]);
    const res = await fetch(`${sim.url}/api/v2.0.0/current`, { headers: { 'If-Modified-Since': 'Fri, 10 Jul 2026 16:00:00 GMT' } });
    expect(res.status).toBe(304);
  });

  it('can be turned off', async () => {
    const sim = await startSim({ conditional: false });
    const res = await fetch(`${sim.url}/api/v2.0.0/current`, { headers: { 'If-None-Match': '*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('last-modified')).toBeNull();
  });
});

describe('moved host', () => {
  it('answers /moved/<path> with 301 to /<path>, which fetch follows', async () => {
    const sim = await startSim();
    const manual = await fetch(`${sim.url}/moved/api/v2.0.0/current?x=1`, { redirect: 'manual' });
    expect(manual.status).toBe(301);
    expect(manual.headers.get('location')).toBe('/api/v2.0.0/current?x=1');
    const followed = await fetch(`${sim.url}/moved/api/v2.0.0/current`);
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${sim.url}/api/v2.0.0/current`);
    expect(((await followed.json()) as { status: string }).status).toMatch(/^(ok|active)$/);
  });

  it('answers unknown paths with 404', async () => {
    const sim = await startSim();
    expect((await fetch(`${sim.url}/api/v3.0.0/current`)).status).toBe(404);
  });
});
