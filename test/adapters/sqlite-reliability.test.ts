import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planPoll } from '../../src/core/diff.ts';
import type { Store } from '../../src/core/ports.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const SEEDING_POLL = Date.UTC(2026, 9, 1, 12, 0, 0);
const LATER_POLL = Date.UTC(2026, 9, 2, 12, 0, 0);
let runCounter = 0;

/** A poll as the poller applies it: backfill until the archive is seeded, seeded by the first poll that read history. */
async function poll(store: Store, raws: RawIncident[], now: number, historyRead = true) {
  const observed = raws.map(one);
  const archived = await store.loadIncidents(observed.map((i) => i.id));
  const seeded = await store.isSeeded();
  const plan = planPoll({ observed, archived, now, backfill: !seeded });
  const run = { id: `run-${++runCounter}`, startedAt: now, finishedAt: now, outcome: 'ok' as const, sources: [], changes: {} };
  await store.applyPoll({ deliveries: [], run, plan, seenIds: observed.map((i) => i.id), seenBefore: Number.MAX_SAFE_INTEGER, rejected: [], markSeeded: !seeded && historyRead });
}

/** Resolved, with its opening note at date_created, an update 20 minutes later and the resolution. */
const resolvedOn = (id: number, day: string, services = ['Files']) =>
  rawIncident({
    id,
    title: `Incident ${id}`,
    status: 'resolved',
    services,
    date_created: `${day}T10:00:00-07:00`,
    date_updated: `${day}T12:00:00-07:00`,
    notes: [
      { body: '<p>Investigating.</p>', date_created: `${day}T10:00:00-07:00` },
      { body: '<p>Fix deployed.</p>', date_created: `${day}T12:00:00-07:00` },
      { body: '<p>Still looking.</p>', date_created: `${day}T10:20:00-07:00` },
    ],
  });

describe('incidentSpans (SQLite)', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('returns nothing from an empty archive', async () => {
    expect(await archive.store.incidentSpans(0)).toEqual([]);
  });

  it('returns incidents going on at any time since the instant: ongoing, or resolved at or after it', async () => {
    await poll(archive.store, [resolvedOn(1, '2026-09-01'), resolvedOn(2, '2026-09-10'), rawIncident({ id: 3, date_created: '2026-08-01T10:00:00-07:00' })], SEEDING_POLL);
    const resolvedAt2 = Date.parse('2026-09-10T12:00:00-07:00');
    expect((await archive.store.incidentSpans(resolvedAt2)).map((s) => s.id)).toEqual(['3', '2']);
    expect((await archive.store.incidentSpans(resolvedAt2 + 1)).map((s) => s.id)).toEqual(['3']);
    expect((await archive.store.incidentSpans(0)).map((s) => s.id)).toEqual(['3', '1', '2']);
  });

  it('reads times, services and the first update after the opening note', async () => {
    await poll(archive.store, [resolvedOn(1, '2026-09-01', ['Files', 'Search']), rawIncident({ id: 2, notes: [rawIncident().notes[0]!] })], SEEDING_POLL);
    const [first, second] = await archive.store.incidentSpans(0);
    expect(first).toEqual({
      id: '1',
      title: 'Incident 1',
      type: 'incident',
      status: 'resolved',
      services: ['Files', 'Search'],
      createdAt: Date.parse('2026-09-01T10:00:00-07:00'),
      resolvedAt: Date.parse('2026-09-01T12:00:00-07:00'),
      firstSeenAt: SEEDING_POLL,
      firstNoteAt: Date.parse('2026-09-01T10:20:00-07:00'),
      backfill: true,
    });
    // Only the opening note, stamped with date_created: no update yet.
    expect(second).toMatchObject({ id: '2', resolvedAt: null, firstNoteAt: null });
  });

  it('tells incidents archived while seeding from those detected later, as their first event does', async () => {
    const BEFORE_HISTORY = SEEDING_POLL - 60_000;
    // A first poll that could not read history: backfill, but the archive is not seeded yet.
    await poll(archive.store, [rawIncident({ id: 1 })], BEFORE_HISTORY, false);
    expect((await archive.store.incidentSpans(0)).map((s) => s.backfill)).toEqual([true]);
    await poll(archive.store, [rawIncident({ id: 1 }), rawIncident({ id: 2, date_created: '2026-10-01T06:00:00-07:00' })], SEEDING_POLL);
    await poll(
      archive.store,
      [rawIncident({ id: 1, status: 'resolved' }), rawIncident({ id: 2, date_created: '2026-10-01T06:00:00-07:00' }), rawIncident({ id: 3, date_created: '2026-10-02T04:00:00-07:00' })],
      LATER_POLL,
    );
    const spans = await archive.store.incidentSpans(0);
    expect(spans.map((s) => [s.id, s.backfill, s.firstSeenAt])).toEqual([
      ['1', true, BEFORE_HISTORY],
      ['2', true, SEEDING_POLL],
      ['3', false, LATER_POLL],
    ]);
    const created = archive.sqlite.prepare("SELECT incident_id AS id, backfill FROM events WHERE type = 'incident.created' ORDER BY incident_id").all() as { id: string; backfill: number }[];
    expect(created.map((e) => [e.id, e.backfill === 1])).toEqual(spans.map((s) => [s.id, s.backfill]));
  });
});
