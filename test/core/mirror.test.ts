import { describe, expect, it } from 'vitest';
import { compareUrgency, renderCurrentV1, renderCurrentV2 } from '../../src/core/mirror.ts';
import { one, rawIncident } from '../fixtures/vendor-builders.ts';

const NOW = Date.UTC(2026, 9, 1, 15, 0, 0);

describe('vendor mirror', () => {
  const notice = one(rawIncident({ id: 1, type: 'notice', date_updated: '2026-10-01T07:50:00-07:00' }));
  const outage = one(rawIncident({ id: 2, type: 'outage', services: ['Files'] }));
  const incident = one(rawIncident({ id: 3, type: 'incident', services: ['Files', 'Search'] }));

  it('ranks outage before incident before notice', () => {
    expect([notice, incident, outage].sort(compareUrgency).map((i) => i.id)).toEqual(['2', '3', '1']);
  });

  it('v1 shows the single most urgent incident, flat, with a string id', () => {
    const v1 = renderCurrentV1([notice, incident, outage], null, incident, NOW);
    expect(v1).toMatchObject({ id: '2', type: 'outage', status: 'active' });
    expect(Object.keys(v1)).toEqual(['id', 'title', 'type', 'status', 'url', 'date_created', 'date_updated', 'notes', 'services']);
  });

  it('v1 falls back to a recently updated resolved incident, then to the terse ok', () => {
    const resolved = one(rawIncident({ id: 9, status: 'resolved' }));
    expect(renderCurrentV1([], resolved, resolved, NOW)).toMatchObject({ id: '9', status: 'resolved' });
    expect(renderCurrentV1([], null, resolved, NOW)).toEqual({
      status: 'ok',
      date_created: resolved.dateCreated.raw,
      date_updated: resolved.dateUpdated.raw,
      active_incidents: [],
    });
  });

  it('v2 lists every active incident with numeric ids, newest update first', () => {
    const v2 = renderCurrentV2([incident, notice], null, NOW);
    expect(v2.status).toBe('active');
    expect(v2.active_incidents.map((i) => i.id)).toEqual([1, 3]);
    expect(v2.date_updated).toBe(notice.dateUpdated.raw);
  });

  it('v2 says ok with the latest incident’s dates when nothing is active', () => {
    expect(renderCurrentV2([], incident, NOW)).toEqual({
      status: 'ok',
      date_created: incident.dateCreated.raw,
      date_updated: incident.dateUpdated.raw,
      active_incidents: [],
    });
  });
});
