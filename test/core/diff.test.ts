import { describe, expect, it } from 'vitest';
import { planPoll, splitPlan, type ArchivedIncident, type PollPlan } from '../../src/core/diff.ts';
import type { Incident } from '../../src/core/incident.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

const NOW = Date.UTC(2026, 9, 1, 15, 0, 0);

/** Applies a plan to an in-memory archive the way the store does. */
function apply(archive: Map<string, ArchivedIncident>, plan: PollPlan): Map<string, ArchivedIncident> {
  const next = new Map(archive);
  for (const w of plan.writes) next.set(w.incident.id, { ...w.incident, revision: w.revision, resolvedAt: w.resolvedAt });
  return next;
}

function poll(archive: Map<string, ArchivedIncident>, observed: Incident[], backfill = false) {
  const plan = planPoll({ observed, archived: archive, now: NOW, backfill });
  return { plan, archive: apply(archive, plan) };
}

function seeded(...raws: RawIncident[]): Map<string, ArchivedIncident> {
  return poll(new Map(), raws.map(one), true).archive;
}

describe('planPoll', () => {
  it('records a new incident as created, with its latest note', () => {
    const { plan } = poll(new Map(), [one(rawIncident())]);
    expect(plan.writes).toHaveLength(1);
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]).toMatchObject({ id: '1579.r1.created', type: 'incident.created', backfill: false, revision: 1 });
    expect(plan.events[0]?.data).toMatchObject({ note: { body: '<p>A third-party app is stuck in a loop.</p>' } });
  });

  it('marks events of a backfill as such', () => {
    const { plan } = poll(new Map(), [one(rawIncident())], true);
    expect(plan.events.every((e) => e.backfill)).toBe(true);
  });

  it('does nothing when nothing changed: no write, no event', () => {
    const archive = seeded(rawIncident());
    expect(poll(archive, [one(rawIncident())]).plan).toEqual({ writes: [], events: [], pending: 0 });
  });

  it('does nothing when only the order of notes or services changed (2019 newest-first vs 2026 oldest-first)', () => {
    const base = rawIncident({ services: ['Messaging', 'Files'] });
    const archive = seeded(base);
    const reordered = rawIncident({ services: ['Files', 'Messaging'], notes: [...base.notes].reverse() });
    expect(poll(archive, [one(reordered)]).plan.events).toEqual([]);
  });

  it('does nothing for an id sent as a string after being a number', () => {
    const archive = seeded(rawIncident({ id: 622 }));
    expect(poll(archive, [one(rawIncident({ id: '622' }))]).plan).toEqual({ writes: [], events: [], pending: 0 });
  });

  it('sees a title edited in place although date_updated did not move (incident 1136)', () => {
    const archive = seeded(rawIncident());
    const { plan } = poll(archive, [one(rawIncident({ title: 'Message sending is failing for some Free plan teams' }))]);
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]).toMatchObject({
      id: '1579.r2.updated',
      type: 'incident.updated',
      data: {
        changes: { title: { from: 'Free Plan Customers Are Experiencing Message Failures', to: 'Message sending is failing for some Free plan teams' } },
      },
    });
  });

  it('sees a note body edited in place, keeping the note’s identity', () => {
    const base = rawIncident();
    const archive = seeded(base);
    const edited = rawIncident({ notes: [base.notes[0]!, { ...base.notes[1]!, body: '<p>A third-party app was stuck in a loop.</p>' }] });
    const { plan } = poll(archive, [one(edited)]);
    expect(plan.events.map((e) => e.type)).toEqual(['incident.note_edited']);
    expect(plan.events[0]?.data).toMatchObject({ from: '<p>A third-party app is stuck in a loop.</p>', to: '<p>A third-party app was stuck in a loop.</p>' });
  });

  it('records a resolution with the note that came with it', () => {
    const base = rawIncident();
    const archive = seeded(base);
    const resolved = rawIncident({
      status: 'resolved',
      date_updated: '2026-10-01T07:31:24-07:00',
      notes: [...base.notes, { body: '<p>Fixed.</p>', date_created: '2026-10-01T07:31:24-07:00' }],
    });
    const { plan, archive: after } = poll(archive, [one(resolved)]);
    expect(plan.events.map((e) => e.type).sort()).toEqual(['incident.note_added', 'incident.status_changed']);
    const status = plan.events.find((e) => e.type === 'incident.status_changed')!;
    expect(status.data).toMatchObject({ from: 'active', to: 'resolved', note: { body: '<p>Fixed.</p>' } });
    expect(after.get('1579')?.resolvedAt).toBe(Date.parse('2026-10-01T07:31:24-07:00'));
  });

  it('gives a reopened and re-resolved incident new event ids each time', () => {
    let archive = seeded(rawIncident());
    const ids: string[] = [];
    for (const status of ['resolved', 'active', 'resolved']) {
      const step = poll(archive, [one(rawIncident({ status }))]);
      ids.push(...step.plan.events.map((e) => e.id));
      archive = step.archive;
    }
    expect(ids).toEqual(['1579.r2.status', '1579.r3.status', '1579.r4.status']);
  });

  it('reports services and type changes, comparing services as a set', () => {
    const archive = seeded(rawIncident({ services: ['Messaging'] }));
    const { plan } = poll(archive, [one(rawIncident({ services: ['Messaging', 'Files'], type: 'outage' }))]);
    expect(plan.events[0]?.data).toMatchObject({
      changes: { services: { from: ['Messaging'], to: ['Messaging', 'Files'] }, type: { from: 'incident', to: 'outage' } },
    });
  });

  it('stores a moved date_updated as a new version without an event', () => {
    const archive = seeded(rawIncident());
    const { plan } = poll(archive, [one(rawIncident({ date_updated: '2026-10-01T06:10:00-07:00' }))]);
    expect(plan.events).toEqual([]);
    expect(plan.writes.map((w) => w.revision)).toEqual([2]);
  });

  it('never concludes anything from absence: an incident missing from the feed is left alone', () => {
    const archive = seeded(rawIncident({ id: 1 }), rawIncident({ id: 2 }));
    expect(poll(archive, [one(rawIncident({ id: 1 }))]).plan).toEqual({ writes: [], events: [], pending: 0 });
  });

  it('keeps a note the feed stopped showing, without an event and without rewriting', () => {
    const base = rawIncident();
    const archive = seeded(base);
    const { plan } = poll(archive, [one(rawIncident({ notes: [base.notes[1]!] }))]);
    expect(plan).toEqual({ writes: [], events: [], pending: 0 });
  });

  it('produces the same ids when the same poll is planned twice against the same archive', () => {
    const archive = seeded(rawIncident());
    const next = [one(rawIncident({ status: 'resolved', title: 'Fixed' }))];
    const a = planPoll({ observed: next, archived: archive, now: NOW, backfill: false });
    const b = planPoll({ observed: next, archived: archive, now: NOW + 60_000, backfill: false });
    expect(a.events.map((e) => e.id)).toEqual(b.events.map((e) => e.id));
  });

  it('dates a first-seen resolved incident by its last note, not a later date_updated (1574)', () => {
    const raw = rawIncident({
      status: 'resolved',
      date_updated: '2026-07-28T16:09:00-07:00',
      date_created: '2026-07-27T10:00:00-07:00',
      notes: [
        { body: 'start', date_created: '2026-07-27T10:00:00-07:00' },
        { body: 'resolved', date_created: '2026-07-27T20:43:47-07:00' },
      ],
    });
    const { plan } = poll(new Map(), [one(raw)], true);
    expect(plan.writes[0]?.resolvedAt).toBe(Date.parse('2026-07-27T20:43:47-07:00'));
  });
});

describe('event order', () => {
  it('lists the events of one poll in the order they happened, whatever the feed order', () => {
    const newestFirst = [
      one(rawIncident({ id: 3, date_created: '2026-09-03T10:00:00-07:00', notes: [] })),
      one(rawIncident({ id: 1, date_created: '2026-09-01T10:00:00-07:00', notes: [] })),
      one(rawIncident({ id: 2, date_created: '2026-09-02T10:00:00-07:00', notes: [] })),
    ];
    const { events } = planPoll({ observed: newestFirst, archived: new Map(), now: NOW, backfill: true });
    expect(events.map((e) => e.incidentId)).toEqual(['1', '2', '3']);
  });
});

describe('planPoll with a budget of incidents per poll', () => {
  const titled = (id: number, title: string, overrides: Partial<RawIncident> = {}) => rawIncident({ id, title, ...overrides });

  it('writes at most the budget, counts the rest as pending, and applies new incidents and status changes first', () => {
    const archive = seeded(titled(1, 'Resolved long ago', { status: 'resolved' }), titled(2, 'Going on'), titled(3, 'About to resolve'));
    const observed = [
      titled(1, 'Resolved long ago, edited', { status: 'resolved' }), // last: an edit of a resolved incident
      titled(2, 'Going on, edited'), // second: an edit of an ongoing one
      titled(3, 'About to resolve', { status: 'resolved' }), // first: a status change
      titled(4, 'Brand new'), // first: a new incident
    ].map(one);
    const plan = planPoll({ observed, archived: archive, now: NOW, backfill: false, maxWrites: 2 });
    expect(plan.writes.map((w) => w.incident.id).sort()).toEqual(['3', '4']);
    expect(plan.events.map((e) => e.id).sort()).toEqual(['3.r2.status', '4.r1.created']);
    expect(plan.pending).toBe(2);
    const next = planPoll({ observed, archived: apply(archive, plan), now: NOW, backfill: false, maxWrites: 1 });
    expect(next.writes.map((w) => w.incident.id)).toEqual(['2']);
    expect(next.pending).toBe(1);
  });

  it('gives every incident its turn when the feed edits all of them before every poll', () => {
    let archive = seeded(...[1, 2, 3, 4, 5].map((id) => titled(id, 'v0', { status: 'resolved' })));
    const written: string[] = [];
    for (let round = 1; round <= 5; round++) {
      const observed = [1, 2, 3, 4, 5].map((id) => one(titled(id, `v${round}`, { status: 'resolved' })));
      const result = planPoll({ observed, archived: archive, now: NOW, backfill: false, maxWrites: 2 });
      expect(result.pending).toBe(3);
      written.push(...result.writes.map((w) => w.incident.id));
      archive = apply(archive, result);
    }
    // Ten writes over five incidents: two each, none left waiting.
    expect([...written].sort()).toEqual(['1', '1', '2', '2', '3', '3', '4', '4', '5', '5']);
  });

  it('backfills a history larger than the budget oldest update first, and independent of the feed order', () => {
    const history = [5, 4, 3, 2, 1].map((n) => titled(n, `Incident ${n}`, { status: 'resolved', date_updated: `2026-0${n}-01T00:00:00-08:00` }));
    const forward = planPoll({ observed: history.map(one), archived: new Map(), now: NOW, backfill: true, maxWrites: 2 });
    const backward = planPoll({ observed: [...history].reverse().map(one), archived: new Map(), now: NOW, backfill: true, maxWrites: 2 });
    expect(forward.writes.map((w) => w.incident.id).sort()).toEqual(['1', '2']);
    expect(backward.writes.map((w) => w.incident.id).sort()).toEqual(['1', '2']);
  });

  it("splits a plan into atomic pieces that each carry exactly their incidents' events, in time order", () => {
    const plan = planPoll({ observed: [1, 2, 3, 4, 5].map((id) => one(titled(id, `Incident ${id}`))), archived: new Map(), now: NOW, backfill: false });
    const pieces = splitPlan(plan, 2);
    expect(pieces.map((p) => p.writes.length)).toEqual([2, 2, 1]);
    for (const piece of pieces) {
      const ids = new Set(piece.writes.map((w) => w.incident.id));
      expect(piece.events.every((e) => ids.has(e.incidentId))).toBe(true);
    }
    expect(pieces.flatMap((p) => p.events.map((e) => e.id)).sort()).toEqual(plan.events.map((e) => e.id).sort());
    // A backfill of more than one piece still logs oldest first, whatever order the feed used.
    const newestFirst = [5, 4, 3, 2, 1].map((n) =>
      one(titled(n, `Incident ${n}`, { date_created: `2026-0${n}-01T00:00:00-08:00`, date_updated: `2026-0${n}-01T00:00:00-08:00`, notes: [] })),
    );
    const backfill = splitPlan(planPoll({ observed: newestFirst, archived: new Map(), now: NOW, backfill: true }), 2);
    expect(backfill.flatMap((p) => p.events.map((e) => e.incidentId))).toEqual(['1', '2', '3', '4', '5']);
    expect(splitPlan({ writes: [], events: [] }, 10)).toEqual([{ writes: [], events: [] }]);
  });
});
