/** The real service against the simulated vendor over loopback HTTP: polls, events, the archive API. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';

const past = (id: number, day: number): RawIncident =>
  rawIncident({
    id,
    title: `Past incident ${id}`,
    status: 'resolved',
    date_created: `2026-09-${String(day).padStart(2, '0')}T10:00:00-07:00`,
    date_updated: `2026-09-${String(day).padStart(2, '0')}T11:00:00-07:00`,
    notes: [
      { body: '<p>Investigating.</p>', date_created: `2026-09-${String(day).padStart(2, '0')}T10:00:00-07:00` },
      { body: '<p>Resolved.</p>', date_created: `2026-09-${String(day).padStart(2, '0')}T11:00:00-07:00` },
    ],
  });

const active = rawIncident({
  id: 1600,
  title: 'Some files fail to upload',
  services: ['Files'],
  date_created: '2026-11-22T01:00:00-08:00',
  date_updated: '2026-11-22T01:00:00-08:00',
  notes: [{ body: '<p>Uploads are failing for some users.</p>', date_created: '2026-11-22T01:00:00-08:00' }],
});

describe('poll cycle against the simulated vendor', () => {
  let vendor: TestVendor;
  let service: TestService;

  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url);
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
  });
  beforeEach(async () => {
    await vendor.clearFaults();
  });

  it('seeds an empty archive from history as backfill', async () => {
    await vendor.setIncidents([past(1500, 1), past(1501, 2), past(1502, 3)]);
    const result = await service.poll();
    expect(result).toMatchObject({ ok: true, outcome: 'ok' });
    expect(result.events).toHaveLength(3);
    expect(result.events.every((e: { backfill: boolean; type: string }) => e.backfill && e.type === 'incident.created')).toBe(true);
    expect(service.logs.some((l) => l.includes('poll changed the archive'))).toBe(true);
  });

  it('records a new incident as news, and serves it back in the vendor’s formats', async () => {
    await vendor.setIncidents([active, past(1500, 1), past(1501, 2), past(1502, 3)]);
    const result = await service.poll();
    expect(result.events.map((e: { id: string; backfill: boolean }) => [e.id, e.backfill])).toEqual([['1600.r1.created', false]]);

    const v2 = await service.get('/api/v2.0.0/current');
    expect(v2.body).toMatchObject({ status: 'active', active_incidents: [{ id: 1600, title: 'Some files fail to upload', services: ['Files'] }] });
    const v1 = await service.get('/api/v1.0.0/current');
    expect(v1.body).toMatchObject({ id: '1600', status: 'active' });
    expect((await service.get('/api/current')).body).toEqual(v1.body);
    const history = await service.get('/api/v2.0.0/history');
    expect(history.body.map((i: { id: number }) => i.id)).toEqual([1600, 1502, 1501, 1500]);
  });

  it('does not write or emit anything when the feed has not changed, and uses conditional requests', async () => {
    await fetch(`${vendor.url}/_sim/requests`, { method: 'DELETE' });
    const result = await service.poll();
    expect(result).toMatchObject({ outcome: 'ok', unchanged: true, events: [] });
    const requests = await vendor.requests();
    expect(requests.filter((r) => r.path.startsWith('/api/v2.0.0/')).map((r) => [r.path, r.status, r.ifNoneMatch])).toEqual(
      expect.arrayContaining([
        ['/api/v2.0.0/current', 304, true],
        ['/api/v2.0.0/history', 304, true],
      ]),
    );
  });

  it('sees a title edited in place and a resolution, in the poll that first shows them', async () => {
    const edited = { ...active, title: 'Some files fail to upload or download' };
    await vendor.setIncidents([edited, past(1500, 1), past(1501, 2), past(1502, 3)]);
    const first = await service.poll();
    expect(first.events.map((e: { type: string }) => e.type)).toEqual(['incident.updated']);
    expect(first.events[0].data.changes.title).toEqual({ from: 'Some files fail to upload', to: 'Some files fail to upload or download' });

    const resolved: RawIncident = {
      ...edited,
      status: 'resolved',
      date_updated: '2026-11-22T02:00:00-08:00',
      notes: [...edited.notes, { body: '<p>Uploads work again.</p>', date_created: '2026-11-22T02:00:00-08:00' }],
    };
    await vendor.setIncidents([resolved, past(1500, 1), past(1501, 2), past(1502, 3)]);
    const second = await service.poll();
    expect(second.events.map((e: { type: string }) => e.type).sort()).toEqual(['incident.note_added', 'incident.status_changed']);
    const incident = await service.get('/api/incidents/1600');
    expect(incident.body.incident).toMatchObject({ status: 'resolved', resolved_at: '2026-11-22T10:00:00.000Z', duration_seconds: 3600, note_count: 2 });
    expect(incident.body.events.map((e: { type: string }) => e.type)).toEqual([
      'incident.created',
      'incident.updated',
      'incident.status_changed',
      'incident.note_added',
    ]);
    expect((await service.get('/api/v2.0.0/current')).body).toMatchObject({ status: 'ok', active_incidents: [] });

    const versions = (await service.get('/api/incidents/1600/versions')).body.versions;
    expect(versions.map((v: { revision: number; incident: { title: string; status: string } }) => [v.revision, v.incident.title, v.incident.status])).toEqual([
      [1, 'Some files fail to upload', 'active'],
      [2, 'Some files fail to upload or download', 'active'],
      [3, 'Some files fail to upload or download', 'resolved'],
    ]);
    expect(versions[2].incident.notes).toHaveLength(2);
    expect((await service.get('/api/incidents/424242/versions')).status).toBe(404);
  });

  it('keeps incidents the vendor forgot', async () => {
    await vendor.setIncidents([]);
    const result = await service.poll();
    expect(result.events).toEqual([]);
    const list = await service.get('/api/incidents?limit=10');
    expect(list.body.incidents.map((i: { id: string }) => i.id)).toEqual(['1600', '1502', '1501', '1500']);
  });
});
