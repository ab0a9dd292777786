/**
 * Sources polled beside the main feed through the admin's poll route (both projects: a SQLite file
 * on Node, D1 in workerd; real HTTP on loopback to the simulated vendor and simulated pages): each
 * source's result is listed beside the main feed's answer, one source can be polled alone, and a
 * page that never answers fails only its own source while the main feed and another page are read
 * on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

const POLL_TIMEOUT_MS = 1000;

describe('sources polled over the API', () => {
  let vendor: TestVendor;
  let acme: TestStatuspage;
  let globex: TestStatuspage;
  let service: TestApp;
  let acmeId: string;
  let globexId: string;

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([rawIncident({ id: 41 })]);
    acme = await startTestStatuspage();
    globex = await startTestStatuspage({ name: 'Globex Mail' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', POLL_TIMEOUT_MS: String(POLL_TIMEOUT_MS) } });
    acmeId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url })).body.source.id;
    globexId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: globex.url })).body.source.id;
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), acme?.close(), globex?.close()]);
  });

  it("lists each source's result beside the main feed's answer; a first read backfills the page's history", async () => {
    const polled = await service.admin('POST', '/api/admin/poll');
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ ok: true, outcome: 'ok', run: { outcome: 'ok' } });
    expect(polled.body.sources.map((s: { source: string; outcome: string }) => [s.source, s.outcome])).toEqual([
      [acmeId, 'ok'],
      [globexId, 'ok'],
    ]);
    const [acmeResult] = polled.body.sources;
    expect(acmeResult.events.map((e: { type: string; incident_id: string; backfill: boolean }) => [e.type, e.incident_id, e.backfill])).toEqual([
      ['incident.created', `${acmeId}:swinc0000000`, true],
    ]);
    expect(acmeResult.reads.map((r: { path: string }) => r.path)).toEqual([
      '/api/v2/summary.json',
      '/api/v2/incidents.json',
      '/api/v2/scheduled-maintenances.json',
    ]);
    const listed = (await service.get('/api/sources')).body.sources;
    expect(listed.map((s: { id: string; state: string }) => [s.id, s.state])).toEqual([
      ['main', 'known'],
      [acmeId, 'known'],
      [globexId, 'known'],
    ]);
  });

  it('lists one source\'s incidents and events with ?source=, each naming its source ("main" for the main feed)', async () => {
    type Row = { id?: string; incident_id?: string | null; source: string };
    const incidents = async (query: string) => (await service.get(`/api/incidents${query}`)).body.incidents as Row[];
    const events = async (query: string) => (await service.get(`/api/events${query}`)).body.events as Row[];
    expect((await incidents(`?source=${acmeId}`)).map((i) => [i.id, i.source])).toEqual([[`${acmeId}:swinc0000000`, acmeId]]);
    expect((await events(`?source=${globexId}`)).map((e) => [e.incident_id, e.source])).toEqual([[`${globexId}:swinc0000000`, globexId]]);
    const all = await incidents('');
    const main = await incidents('?source=main');
    expect(main.length).toBeGreaterThan(0);
    expect(main.every((i) => i.source === 'main' && !i.id?.includes(':'))).toBe(true);
    expect(all.length).toBe(main.length + 2);
    expect(new Set((await events('')).map((e) => e.source))).toEqual(new Set(['main', acmeId, globexId]));
    const bad = await service.get('/api/events?source=not%20a%20source');
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_request']);
  });

  it('polls one source alone with ?source=ID, and says when there is no such source', async () => {
    const one = await service.admin('POST', `/api/admin/poll?source=${globexId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      ok: true,
      sources: [
        expect.objectContaining({
          source: globexId,
          outcome: 'ok',
          unchanged: true,
          events: [],
          reads: [expect.objectContaining({ path: '/api/v2/summary.json', not_modified: true })],
        }),
      ],
    });
    const none = await service.admin('POST', '/api/admin/poll?source=src_nope');
    expect([none.status, none.body.error]).toEqual([404, 'source_not_found']);
    const mainOnly = await service.admin('POST', '/api/admin/poll?source=main');
    expect(mainOnly.status).toBe(200);
    expect([mainOnly.body.outcome, mainOnly.body.sources]).toEqual(['ok', []]);
  });

  it("keeps a source's open incident off the main feed's faces: the vendor mirror, the widget and the feed", async () => {
    // The simulated page opens its story's incident (API partially out).
    const advanced = await fetch(`${acme.url}/_sim/advance`, { method: 'POST' });
    expect(advanced.status).toBe(200);
    const polled = await service.admin('POST', `/api/admin/poll?source=${acmeId}`);
    // The component the incident names flipped too: an event of its own, the page's.
    expect(polled.body.sources[0].events.map((e: { type: string }) => e.type)).toEqual(['incident.created', 'component.status_changed']);
    const flips = await service.get(`/api/events?source=${acmeId}&type=component.status_changed`);
    expect(flips.body.events).toEqual([
      expect.objectContaining({
        type: 'component.status_changed',
        incident_id: null,
        source: acmeId,
        backfill: false,
        data: {
          type: 'component.status_changed',
          source: { id: acmeId, name: 'Acme Cloud' },
          component: { id: 'swcmpapi0001', name: 'API', group: 'Core' },
          from: 'operational',
          to: 'partial_outage',
          from_state: 'Operational',
          to_state: 'Outage',
        },
      }),
    ]);
    // The main feed's log does not hold it.
    expect((await service.get('/api/events?source=main&type=component.status_changed')).body.events).toEqual([]);
    // The event log's description names the type and says the incident id is null for it.
    const openapi = JSON.stringify((await service.get('/openapi.json')).body.paths['/api/events']);
    expect(openapi).toContain('component.status_changed');
    const open = (await service.get(`/api/incidents?source=${acmeId}&status=active`)).body.incidents;
    expect(open.map((i: { id: string }) => i.id)).toEqual([`${acmeId}:swinc0000001`]);
    for (const path of ['/api/v2.0.0/current', '/api/v1.0.0/current', '/widget.json']) {
      const answer = await service.get(path);
      expect([path, answer.status, JSON.stringify(answer.body).includes(acmeId)]).toEqual([path, 200, false]);
    }
    const feed = await service.fetch(`${service.url}/feed.atom`);
    expect([feed.status, (await feed.text()).includes(acmeId)]).toEqual([200, false]);
  });

  it('a page that never answers fails only its source: the main feed and the other page are read on time', async () => {
    await acme.fault({ target: '*', kind: 'timeout', times: 3 });
    const polled = await service.admin('POST', '/api/admin/poll');
    expect(polled.status).toBe(200);
    expect(polled.body.outcome).toBe('ok');
    expect(polled.body.run.duration_ms).toBeLessThan(POLL_TIMEOUT_MS);
    const [acmeResult, globexResult] = polled.body.sources;
    expect(acmeResult).toMatchObject({ source: acmeId, outcome: 'failed', error: expect.stringContaining(`within ${POLL_TIMEOUT_MS} ms`) });
    expect(globexResult).toMatchObject({ source: globexId, outcome: 'ok' });
    for (const read of globexResult.reads) expect(read.duration_ms).toBeLessThan(POLL_TIMEOUT_MS);
    const listed = (await service.get('/api/sources')).body.sources;
    expect(listed.map((s: { id: string; consecutive_failures: number }) => [s.id, s.consecutive_failures])).toEqual([
      ['main', 0],
      [acmeId, 1],
      [globexId, 0],
    ]);
    await acme.clearFaults();
  });
});

describe('a source removed while it is polled', () => {
  // Long enough that the removal lands while the list is still coming, on a loaded machine too.
  const SLOW_LIST_MS = 2500;
  let vendor: TestVendor;
  let initech: TestStatuspage;
  let service: TestApp;

  beforeAll(async () => {
    vendor = await startTestVendor();
    initech = await startTestStatuspage({ name: 'Initech' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', POLL_TIMEOUT_MS: '10000' } });
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), initech?.close()]);
  });

  it('polled alone, it answers 404 source_not_found, and nothing of the poll is written', { timeout: 20_000 }, async () => {
    const id = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: initech.url })).body.source.id;
    // The incidents list comes slowly: the poll has found the source and read its summary, and
    // has yet to write its first read's history when the source is removed.
    await initech.fault({ target: 'incidents', kind: 'slow', delayMs: SLOW_LIST_MS, times: 1 });
    const polling = service.admin('POST', `/api/admin/poll?source=${id}`);
    await expect.poll(async () => (await initech.requests()).some((r) => r.path === '/api/v2/incidents.json'), { timeout: 5000, interval: 20 }).toBe(true);
    expect((await service.admin('DELETE', `/api/admin/sources/${id}`)).status).toBe(200);
    const polled = await polling;
    expect([polled.status, polled.body.error]).toEqual([404, 'source_not_found']);
    const incidents = await service.get(`/api/incidents?source=${id}`);
    expect(incidents.body.incidents ?? []).toEqual([]);
    expect((await service.get('/api/sources')).body.sources.map((s: { id: string }) => s.id)).not.toContain(id);
  });
});
