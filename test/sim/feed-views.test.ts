import { describe, expect, it } from 'vitest';
import { currentV1View, currentV2View, historyView } from '../../src/sim/feed-views.ts';
import type { SimIncident } from '../../src/sim/world.ts';

const NOW = Date.UTC(2026, 6, 15, 19, 0, 0);
const MIN = 60_000;
const DAY = 86_400_000;

function sim(id: number, fields: Partial<SimIncident> = {}): SimIncident {
  const createdMs = fields.dateCreatedMs ?? NOW - 5 * DAY;
  return {
    id,
    title: `Incident ${id}`,
    type: 'incident',
    status: 'resolved',
    url: `https://slack-status.com/2026-07/${id}`,
    services: [],
    dateCreatedMs: createdMs,
    dateUpdatedMs: fields.dateUpdatedMs ?? createdMs,
    notes: [{ body: 'x', dateCreatedMs: createdMs }],
    ...fields,
  };
}

describe('v2 current', () => {
  it('when ok, echoes the most recently created incident, even if another was updated later', () => {
    const view = currentV2View(
      [
        sim(1576, { dateCreatedMs: NOW - 3 * DAY, dateUpdatedMs: NOW - 1 * DAY }),
        sim(1578, { dateCreatedMs: NOW - 2 * DAY, dateUpdatedMs: NOW - 2 * DAY + 30 * MIN }),
      ],
      0,
    );
    expect(view).toEqual({ status: 'ok', dateCreatedMs: NOW - 2 * DAY, dateUpdatedMs: NOW - 2 * DAY + 30 * MIN, active: [] });
  });

  it('when active, lists every ongoing incident and takes the newest active one’s dates', () => {
    const view = currentV2View(
      [
        sim(1, { status: 'active', dateCreatedMs: NOW - 60 * MIN, dateUpdatedMs: NOW - 5 * MIN }),
        sim(2, { status: 'scheduled', dateCreatedMs: NOW - 30 * MIN, dateUpdatedMs: NOW - 20 * MIN }),
        sim(3, { status: 'resolved', dateCreatedMs: NOW - 10 * MIN }),
        sim(4, { status: 'cancelled', dateCreatedMs: NOW - 9 * MIN }),
      ],
      0,
    );
    expect(view.status).toBe('active');
    expect(view.active.map((i) => i.id)).toEqual([2, 1]);
    expect([view.dateCreatedMs, view.dateUpdatedMs]).toEqual([NOW - 30 * MIN, NOW - 20 * MIN]);
  });

  it('falls back to the given instant for an empty world', () => {
    expect(currentV2View([], 1234)).toEqual({ status: 'ok', dateCreatedMs: 1234, dateUpdatedMs: 1234, active: [] });
  });
});

describe('v1 current', () => {
  it('ranks outage over incident over notice, whatever the age', () => {
    const world = [
      sim(10, { type: 'notice', status: 'active', dateUpdatedMs: NOW }),
      sim(11, { type: 'incident', status: 'active', dateUpdatedMs: NOW - MIN }),
      sim(12, { type: 'outage', status: 'active', dateUpdatedMs: NOW - 3 * DAY }),
    ];
    expect(currentV1View(world, NOW, 0)).toMatchObject({ kind: 'incident', incident: { id: 12 } });
    expect(currentV1View(world.slice(0, 2), NOW, 0)).toMatchObject({ kind: 'incident', incident: { id: 11 } });
  });

  it('prefers status active over other ongoing statuses, then the newest update', () => {
    const world = [
      sim(20, { status: 'scheduled', dateUpdatedMs: NOW }),
      sim(21, { status: 'active', dateUpdatedMs: NOW - 2 * MIN }),
      sim(22, { status: 'active', dateUpdatedMs: NOW - MIN }),
    ];
    expect(currentV1View(world, NOW, 0)).toMatchObject({ incident: { id: 22 } });
  });

  it('shows a resolved incident updated within the last hour, then nothing after the hour', () => {
    const world = [sim(30, { dateUpdatedMs: NOW - 59 * MIN }), sim(31, { dateUpdatedMs: NOW - 30 * MIN, dateCreatedMs: NOW - 40 * MIN })];
    expect(currentV1View(world, NOW, 0)).toMatchObject({ kind: 'incident', incident: { id: 31, status: 'resolved' } });
    expect(currentV1View(world, NOW + 61 * MIN, 0)).toEqual({
      kind: 'ok',
      dateCreatedMs: NOW - 40 * MIN,
      dateUpdatedMs: NOW - 30 * MIN,
    });
  });
});

describe('history', () => {
  it('sorts by date_updated descending (not by id) and drops what left the window', () => {
    const world = [
      sim(1, { dateUpdatedMs: NOW - 10 * DAY }),
      sim(2, { dateUpdatedMs: NOW - 1 * DAY, status: 'active' }),
      sim(3, { dateUpdatedMs: NOW - 5 * DAY }),
      sim(4, { dateCreatedMs: NOW - 200 * DAY, dateUpdatedMs: NOW - 184 * DAY }),
      sim(5, { dateCreatedMs: NOW - 200 * DAY, dateUpdatedMs: NOW - 182 * DAY }),
    ];
    expect(historyView(world, NOW, 183).map((i) => i.id)).toEqual([2, 3, 1, 5]);
    expect(historyView(world, NOW, 7).map((i) => i.id)).toEqual([2, 3]);
  });
});
