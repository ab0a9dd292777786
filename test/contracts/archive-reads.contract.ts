/**
 * The archive's read contract (ArchiveQueries): lists, filters, the cursor, full-text search and
 * its budget, versions, events, spans, poll runs and health, as the API and the pages read them.
 * The archive is written by polls planned as the poller plans them; expectations come from the
 * incidents the scenario puts in, never from a table.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchTooBroadError } from '../../src/core/errors.ts';
import { isOngoing } from '../../src/core/incident.ts';
import type { IncidentFilter, IncidentPosition, ListedIncident, Store } from '../../src/core/ports.ts';
import { SEARCH_LIMITS, toFtsQuery } from '../../src/core/search-query.ts';
import { planPoll } from '../../src/core/diff.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { applyPollOf, archivedAs, planPollOf, pollRun } from './archive-polls.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
const HOUR_MS = 3_600_000;
const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const q = (words: string) => toFtsQuery(words)!;

/** Three incidents, oldest first: a resolved Files one, an outage of Huddles and Files, a Search one with an HTML note. */
const threeIncidents = (): RawIncident[] => [
  rawIncident({
    id: 1,
    title: 'Files fail to upload',
    services: ['Files'],
    date_created: '2026-07-01T10:00:00-07:00',
    date_updated: '2026-07-02T10:00:00-07:00',
    status: 'resolved',
  }),
  rawIncident({
    id: 2,
    title: 'Huddles drop',
    services: ['Huddles', 'Files'],
    type: 'outage',
    date_created: '2026-08-01T10:00:00-07:00',
    date_updated: '2026-08-02T10:00:00-07:00',
  }),
  rawIncident({
    id: 3,
    title: 'Search is slow',
    services: [],
    date_created: '2026-09-01T10:00:00-07:00',
    date_updated: '2026-09-02T10:00:00-07:00',
    notes: [{ body: '<p>Uploading&nbsp;attachments is delayed</p>', date_created: '2026-09-01T10:00:00-07:00' }],
  }),
];

/** Every page of a listing, `pageSize` at a time, following the position the last row gives. */
async function allPages(store: Store, filter: IncidentFilter, pageSize: number): Promise<ListedIncident[]> {
  const rows: ListedIncident[] = [];
  let after: IncidentPosition | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.listIncidents(filter, after, pageSize);
    rows.push(...page);
    if (page.length < pageSize) return rows;
    after = { sortKey: page.at(-1)!.sortKey };
  }
  throw new Error('the cursor never reached the end');
}

export function archiveReadsContract(target: StoreTarget): void {
  describe(`archive reads (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('lists the incidents and events of one source, or of the main feed, by the source their ids name', async () => {
      // src_a and src_ab: one source's id is the start of another's.
      const observed = ['1', 'src_a:1', 'src_ab:2', 'src_b:1'].map((id, n) => ({ ...one(rawIncident({ id: n + 1 })), id }));
      const plan = planPoll({ observed, archived: new Map(), now: T0, backfill: false });
      await store.applyPoll({ run: pollRun(T0), plan, deliveries: [], seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
      expect(ids(await store.listIncidents({ source: 'src_a' }, null, 10))).toEqual(['src_a:1']);
      expect(ids(await store.listIncidents({ source: 'main' }, null, 10))).toEqual(['1']);
      expect(await store.listIncidents({ source: 'src_c' }, null, 10)).toEqual([]);
      expect((await store.countIncidents({ source: 'src_ab' }, 10)).count).toBe(1);
      expect((await store.listEvents({ source: 'src_b' }, 0, 10)).map((e) => e.incidentId)).toEqual(['src_b:1']);
      expect((await store.listEvents({ source: 'main' }, 0, 10)).map((e) => e.incidentId)).toEqual(['1']);
      expect((await store.listEvents({ source: 'src_a', types: ['incident.created'] }, 0, 10)).map((e) => e.incidentId)).toEqual(['src_a:1']);
      expect((await store.listEvents({}, 0, 10)).length).toBe(4);
      expect(ids(await store.ongoingIncidents('src_ab'))).toEqual(['src_ab:2']);
      expect(ids(await store.ongoingIncidents('main'))).toEqual(['1']);
      expect((await store.ongoingIncidents()).length).toBe(4);
      expect(ids(await store.recentlyUpdated({ source: 'main' }, 10))).toEqual(['1']);
    });

    it("lists one source's service names alone when asked: the vendor's own for the main feed", async () => {
      const observed = [
        ['1', ['Files', 'Search']],
        ['2', ['Calls']],
        ['src_a:1', ['API', 'Files']],
        ['src_ab:2', ['Website']],
      ].map(([id, services], n) => ({ ...one(rawIncident({ id: n + 1, services: services as string[] })), id: id as string }));
      const plan = planPoll({ observed, archived: new Map(), now: T0, backfill: false });
      await store.applyPoll({ run: pollRun(T0), plan, deliveries: [], seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
      expect(await store.knownServices(100)).toEqual(['API', 'Calls', 'Files', 'Search', 'Website']);
      expect(await store.knownServices(100, 'main')).toEqual(['Calls', 'Files', 'Search']);
      expect(await store.knownServices(2, 'main')).toEqual(['Calls', 'Files']);
      // src_a and src_ab: one source's id is the start of another's.
      expect(await store.knownServices(100, 'src_a')).toEqual(['API', 'Files']);
      expect(await store.knownServices(100, 'src_c')).toEqual([]);
    });

    it("reads one source's incident spans: the main feed's alone, or a page's alone, never its neighbour's whose id it starts", async () => {
      const observed = ['1', 'src_a:2', 'src_ab:3', '4'].map((id, n) => ({ ...one(rawIncident({ id: n + 1 })), id }));
      const plan = planPoll({ observed, archived: new Map(), now: T0, backfill: false });
      await store.applyPoll({ run: pollRun(T0), plan, deliveries: [], seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
      expect((await store.incidentSpans(0, 'main')).map((s) => s.id).sort()).toEqual(['1', '4']);
      expect((await store.incidentSpans(0, 'src_a')).map((s) => s.id)).toEqual(['src_a:2']);
      expect((await store.incidentSpans(0, 'src_ab')).map((s) => s.id)).toEqual(['src_ab:3']);
      expect(await store.incidentSpans(0, 'src_c')).toEqual([]);
    });

    it("gives the vendor mirror's reads the main feed's incidents alone, though another source's are newer", async () => {
      const older = { ...one(rawIncident({ id: 1, date_created: '2026-09-01T10:00:00Z', date_updated: '2026-09-01T10:00:00Z' })), id: '1' };
      const newer = { ...one(rawIncident({ id: 2, date_created: '2026-09-02T10:00:00Z', date_updated: '2026-09-02T10:00:00Z' })), id: 'src_a:2' };
      const plan = planPoll({ observed: [older, newer], archived: new Map(), now: T0, backfill: false });
      await store.applyPoll({ run: pollRun(T0), plan, deliveries: [], seenIds: [], seenBefore: T0, rejected: [], markSeeded: false });
      expect(ids(await store.incidentsUpdatedSince(0, 10))).toEqual(['1']);
      expect(ids(await store.incidentsUpdatedSince(0, 1))).toEqual(['1']);
      expect((await store.latestCreatedIncident())?.id).toBe('1');
    });

    it('answers an empty archive with nothing', async () => {
      expect(await store.listIncidents({}, null, 10)).toEqual([]);
      expect(await store.listIncidents({ q: q('upload') }, null, 10)).toEqual([]);
      expect(await store.recentlyUpdated({}, 10)).toEqual([]);
      expect(await store.ongoingIncidents()).toEqual([]);
      expect(await store.incidentsUpdatedSince(0, 10)).toEqual([]);
      expect(await store.latestCreatedIncident()).toBeNull();
      expect(await store.knownServices(10)).toEqual([]);
      expect(await store.incidentSpans(0, 'main')).toEqual([]);
      expect(await store.listEvents({}, 0, 10)).toEqual([]);
      expect(await store.listPollRuns(null, 10)).toEqual([]);
      expect(await store.getPollRun('run-none')).toBeNull();
      expect(await store.feedHealth()).toEqual({ lastRun: null, lastSuccessAt: null, consecutiveFailures: 0 });
    });

    describe('three incidents', () => {
      beforeEach(async () => {
        await applyPollOf(store, threeIncidents(), T0);
      });

      it('lists newest first and pages by position', async () => {
        expect(ids(await store.listIncidents({}, null, 10))).toEqual(['3', '2', '1']);
        const [, two] = await store.listIncidents({}, null, 2);
        // The position is what cursors carry: the same on every runtime, for the same archive.
        expect(two?.sortKey).toBe((Date.parse('2026-08-01T10:00:00-07:00') / 1000) * 1_000_000);
        expect(ids(await store.listIncidents({}, { sortKey: two!.sortKey }, 10))).toEqual(['1']);
        expect(ids(await store.listIncidents({ q: q('upload') }, { sortKey: two!.sortKey }, 10))).toEqual(['1']);
      });

      it("lists each incident's JSON text on the same pages as its columns, filtered, searched and after a position", async () => {
        const asJson = async (filter: IncidentFilter, after: IncidentPosition | null, limit: number) =>
          (await store.listIncidentsJson(filter, after, limit)).map(({ sortKey, json }) => ({ sortKey, ...(JSON.parse(json) as { id: string }) }));
        for (const [filter, after, limit] of [
          [{}, null, 10],
          [{}, null, 2],
          [{ services: ['Files'] }, null, 10],
          [{ q: q('upload') }, null, 10],
          [{ q: q('nothing-matches') }, null, 10],
          [{}, { sortKey: (Date.parse('2026-08-01T10:00:00-07:00') / 1000) * 1_000_000 }, 10],
        ] as [IncidentFilter, IncidentPosition | null, number][]) {
          const listed = await store.listIncidents(filter, after, limit);
          expect((await asJson(filter, after, limit)).map((item) => [item.sortKey, item.id])).toEqual(listed.map((i) => [i.sortKey, i.id]));
        }
        // The values the columns hold, as the API names them.
        const [three] = await asJson({}, null, 1);
        expect(three).toMatchObject({
          id: '3',
          title: 'Search is slow',
          services: [],
          source: 'main',
          created_at: '2026-09-01T17:00:00.000Z',
          updated_at: '2026-09-02T17:00:00.000Z',
          note_count: 1,
          latest_note: {
            body: '<p>Uploading&nbsp;attachments is delayed</p>',
            text: 'Uploading attachments is delayed',
            created_at: '2026-09-01T17:00:00.000Z',
          },
        });
      });

      it("lists each incident's JSON as its latest write and its latest sighting left it, the single incident's fields", async () => {
        const [one, two, three] = threeIncidents();
        const later = T0 + HOUR_MS;
        const added = { body: '<p>Fixed &amp; watching</p>', date_created: '2026-09-02T09:00:00-07:00' };
        // An hour on: a note added to the third, the others seen again unchanged (their last_seen_at refreshed alone).
        await applyPollOf(store, [one!, two!, { ...three!, notes: [...three!.notes, added] }], later);
        const listed = new Map(
          (await store.listIncidentsJson({}, null, 10)).map(({ json }) => [
            (JSON.parse(json) as { id: string }).id,
            JSON.parse(json) as Record<string, unknown>,
          ]),
        );
        const laterIso = new Date(later).toISOString();
        expect(listed.get('3')).toMatchObject({
          revision: 2,
          last_seen_at: laterIso,
          first_seen_at: new Date(T0).toISOString(),
          note_count: 2,
          latest_note: { body: added.body, text: 'Fixed & watching', created_at: '2026-09-02T16:00:00.000Z' },
        });
        expect(listed.get('1')).toMatchObject({ revision: 1, last_seen_at: laterIso, note_count: one!.notes.length });
        // Every field as the incident alone shows it, with its newest note for its notes.
        for (const [id, item] of listed) {
          const { notes, ...alone } = JSON.parse((await store.getIncidentJson(id))!.json) as { notes: unknown[] };
          expect(item).toEqual({ ...alone, latest_note: notes.at(-1) ?? null });
          expect(Object.keys(item)).toEqual([...Object.keys(alone), 'latest_note']);
        }
      });

      it('counts what a filter matches on every page, up to a bound', async () => {
        expect(await store.countIncidents({}, 100)).toEqual({ count: 3, exact: true });
        expect(await store.countIncidents({ services: ['Files'] }, 100)).toEqual({ count: 2, exact: true });
        expect(await store.countIncidents({ types: ['outage'], statuses: ['active'] }, 100)).toEqual({ count: 1, exact: true });
        expect(await store.countIncidents({ sinceMs: Date.parse('2026-07-15T00:00:00Z') }, 100)).toEqual({ count: 2, exact: true });
        expect(await store.countIncidents({ q: q('upload') }, 100)).toEqual({ count: 2, exact: true });
        expect(await store.countIncidents({ q: q('upload'), services: ['Files'] }, 100)).toEqual({ count: 1, exact: true });
        expect(await store.countIncidents({ services: ['Nothing'] }, 100)).toEqual({ count: 0, exact: true });
        // The bound: at least two, said as such.
        expect(await store.countIncidents({}, 2)).toEqual({ count: 2, exact: false });
        expect(await store.countIncidents({ q: q('upload') }, 1)).toEqual({ count: 1, exact: false });
        expect(await store.countIncidents({}, 3)).toEqual({ count: 3, exact: true });
      });

      it('filters by service, type, status and time', async () => {
        expect(ids(await store.listIncidents({ services: ['Files'] }, null, 10))).toEqual(['2', '1']);
        expect(ids(await store.listIncidents({ services: ['Huddles', 'Search'] }, null, 10))).toEqual(['2']);
        expect(ids(await store.listIncidents({ types: ['outage'] }, null, 10))).toEqual(['2']);
        expect(ids(await store.listIncidents({ statuses: ['resolved'] }, null, 10))).toEqual(['1']);
        expect(ids(await store.listIncidents({ statuses: ['resolved', 'active'], types: ['incident'] }, null, 10))).toEqual(['3', '1']);
        expect(ids(await store.listIncidents({ sinceMs: Date.parse('2026-07-15T00:00:00Z'), untilMs: Date.parse('2026-08-15T00:00:00Z') }, null, 10))).toEqual([
          '2',
        ]);
        expect(ids(await store.listIncidents({ services: ['Nothing'] }, null, 10))).toEqual([]);
      });

      it('finds words in titles and in note bodies stripped of HTML, with stemming and a prefix', async () => {
        expect(ids(await store.listIncidents({ q: q('upload') }, null, 10))).toEqual(['3', '1']);
        expect(ids(await store.listIncidents({ q: q('attachments delayed') }, null, 10))).toEqual(['3']);
        expect(ids(await store.listIncidents({ q: q('nbsp') }, null, 10))).toEqual([]);
        expect(ids(await store.listIncidents({ q: q('p') }, null, 10))).toEqual([]);
        expect(ids(await store.listIncidents({ q: q('upload'), services: ['Files'] }, null, 10))).toEqual(['1']);
        // The last word is a prefix from three characters on (a search box's type-ahead)...
        expect(ids(await store.listIncidents({ q: q('hud') }, null, 10))).toEqual(['2']);
        expect(ids(await store.listIncidents({ q: q('search attach') }, null, 10))).toEqual(['3']);
        // ...and a shorter one is a whole word.
        expect(ids(await store.listIncidents({ q: q('hu') }, null, 10))).toEqual([]);
        // Words anywhere in the incident, all of them required.
        expect(ids(await store.listIncidents({ q: q('files upload') }, null, 10))).toEqual(['1']);
        expect(ids(await store.listIncidents({ q: q('upload huddles') }, null, 10))).toEqual([]);
      });

      it('finds words whatever their accents or case, in any script', async () => {
        await applyPollOf(
          store,
          [
            rawIncident({
              id: 7,
              title: 'Café OUTAGE in Zürich',
              notes: [{ body: '<p>Сообщения задерживаются</p>', date_created: '2026-10-01T05:39:35-07:00' }],
            }),
          ],
          T0 + 1,
        );
        expect(ids(await store.listIncidents({ q: q('cafe') }, null, 10))).toEqual(['7']);
        expect(ids(await store.listIncidents({ q: q('ZURICH outage') }, null, 10))).toEqual(['7']);
        expect(ids(await store.listIncidents({ q: q('сообщения') }, null, 10))).toEqual(['7']);
        expect(ids(await store.listIncidents({ q: q('задерж') }, null, 10))).toEqual(['7']);
      });

      it('keeps an incident renamed in place, found by its new words only', async () => {
        const renamed = { ...threeIncidents()[1]!, title: 'Calls drop' };
        await applyPollOf(store, [renamed], T0 + 1);
        expect(ids(await store.listIncidents({ q: q('huddles') }, null, 10))).toEqual([]);
        expect(ids(await store.listIncidents({ q: q('calls') }, null, 10))).toEqual(['2']);
        expect(ids(await store.listIncidents({}, null, 10))).toEqual(['3', '2', '1']);
        expect(ids(await store.listIncidents({ services: ['Huddles'] }, null, 10))).toEqual(['2']);
      });

      it('moves an incident whose date_created is re-stamped, and still finds it by its words, once', async () => {
        const redated = { ...threeIncidents()[0]!, date_created: '2026-09-30T10:00:00-07:00', date_updated: '2026-09-30T10:00:00-07:00' };
        await applyPollOf(store, [redated], T0 + 1);
        expect(ids(await store.listIncidents({}, null, 10))).toEqual(['1', '3', '2']);
        expect(ids(await store.listIncidents({ q: q('upload') }, null, 10))).toEqual(['1', '3']);
        expect(ids(await store.listIncidents({ services: ['Files'] }, null, 10))).toEqual(['1', '2']);
        expect(ids(await store.listIncidents({ sinceMs: Date.parse('2026-09-15T00:00:00Z') }, null, 10))).toEqual(['1']);
        expect(ids(await store.listIncidents({ untilMs: Date.parse('2026-07-15T00:00:00Z') }, null, 10))).toEqual([]);
        expect((await store.latestCreatedIncident())?.id).toBe('1');
        // Its old place holds nothing: paging past it from the top meets each incident once.
        expect(ids(await allPages(store, { q: q('upload') }, 1))).toEqual(['1', '3']);
        expect(ids(await allPages(store, {}, 1))).toEqual(['1', '3', '2']);
      });

      it('orders incidents created in the same instant by arrival, each once across pages', async () => {
        const same = '2026-09-05T10:00:00-07:00';
        await applyPollOf(
          store,
          [4, 5, 6].map((id) => rawIncident({ id, date_created: same, date_updated: same })),
          T0 + 1,
        );
        const first = await store.listIncidents({}, null, 2);
        const rest = await store.listIncidents({}, { sortKey: first.at(-1)!.sortKey }, 10);
        expect([...ids(first), ...ids(rest)]).toEqual(['6', '5', '4', '3', '2', '1']);
        expect(new Set([...first, ...rest].map((r) => r.sortKey)).size).toBe(6);
      });

      it('lists each incident with its note count and latest note only', async () => {
        const at = '2026-09-10T10:00:00-07:00';
        const notes = [
          { body: 'older', date_created: '2026-09-10T09:00:00-07:00' },
          { body: 'first', date_created: at },
          { body: '<b>second</b>, same second', date_created: at },
        ];
        await applyPollOf(store, [rawIncident({ id: 9, date_created: '2026-09-10T09:00:00-07:00', notes })], T0 + 1);
        const [listed] = await store.listIncidents({ q: q('second') }, null, 10);
        expect(listed).toMatchObject({
          id: '9',
          noteCount: 3,
          latestNote: { body: '<b>second</b>, same second', text: 'second, same second', dateCreated: { raw: at } },
        });
        expect(listed).not.toHaveProperty('notes');
        const withoutNotes = (await store.listIncidents({}, null, 10)).find((r) => r.id === '3');
        expect(withoutNotes).toMatchObject({ noteCount: 1, latestNote: { text: 'Uploading attachments is delayed' } });
      });

      it("gives one incident's JSON text with every note, oldest first, and none for an id it does not have", async () => {
        const at = '2026-09-10T10:00:00-07:00';
        const atMs = Date.parse(at);
        const olderMs = Date.parse('2026-09-10T09:00:00-07:00');
        // The vendor lists its notes newest first, two of them in the same second.
        const notes = [
          { body: '<b>second</b>, same second', date_created: at },
          { body: 'first', date_created: at },
          { body: '<p>older&nbsp;"one"</p>', date_created: '2026-09-10T09:00:00-07:00' },
        ];
        const incident = rawIncident({
          id: 9,
          title: 'Calls "stutter"',
          status: 'resolved',
          services: ['Huddles', 'Calls'],
          date_created: '2026-09-10T09:00:00-07:00',
          date_updated: '2026-09-10T10:30:00-07:00',
          notes,
        });
        await applyPollOf(store, [incident], T0 + 1);
        const found = await store.getIncidentJson('9');
        const expected = {
          id: '9',
          title: 'Calls "stutter"',
          type: 'incident',
          status: 'resolved',
          url: 'https://slack-status.com/2026-10/6c28dfb7b670dc02',
          services: ['Huddles', 'Calls'],
          date_created: '2026-09-10T09:00:00-07:00',
          date_updated: '2026-09-10T10:30:00-07:00',
          source: 'main',
          created_at: '2026-09-10T16:00:00.000Z',
          updated_at: '2026-09-10T17:30:00.000Z',
          // Resolved when first seen: at its last note.
          resolved_at: '2026-09-10T17:00:00.000Z',
          duration_seconds: 3600,
          first_seen_at: '2026-10-01T12:00:00.001Z',
          last_seen_at: '2026-10-01T12:00:00.001Z',
          revision: 1,
          note_count: 3,
          notes: [
            {
              key: `${olderMs}-0`,
              date_created: '2026-09-10T09:00:00-07:00',
              created_at: '2026-09-10T16:00:00.000Z',
              body: '<p>older&nbsp;"one"</p>',
              text: 'older "one"',
            },
            { key: `${atMs}-0`, date_created: at, created_at: '2026-09-10T17:00:00.000Z', body: 'first', text: 'first' },
            { key: `${atMs}-1`, date_created: at, created_at: '2026-09-10T17:00:00.000Z', body: '<b>second</b>, same second', text: 'second, same second' },
          ],
        };
        const parsed = JSON.parse(found!.json) as typeof expected;
        expect(parsed).toEqual(expected);
        expect(Object.keys(parsed)).toEqual(Object.keys(expected));
        for (const note of parsed.notes) expect(Object.keys(note)).toEqual(['key', 'date_created', 'created_at', 'body', 'text']);
        // The same fields as the incident's listed JSON, with its notes in place of the latest.
        const listed = (await store.listIncidentsJson({ q: q('stutter') }, null, 10)).map((item) => JSON.parse(item.json) as Record<string, unknown>);
        const { notes: all, ...fields } = expected;
        expect(listed).toEqual([{ ...fields, latest_note: all.at(-1) }]);
        // Without notes: an empty list; an unknown id: nothing.
        await applyPollOf(store, [rawIncident({ id: 10, date_created: '2026-09-11T09:00:00-07:00', notes: [] })], T0 + 2);
        expect(JSON.parse((await store.getIncidentJson('10'))!.json)).toMatchObject({ id: '10', note_count: 0, notes: [] });
        expect(await store.getIncidentJson('11')).toBeNull();
        expect(await store.getIncidentJson('')).toBeNull();
      });

      it('lists an incident without notes with a count of none and no latest note, its other fields as stored', async () => {
        await applyPollOf(store, [rawIncident({ id: 10, date_created: '2026-09-11T09:00:00-07:00', notes: [] })], T0 + 1);
        const listed = (await store.listIncidents({}, null, 10)).find((r) => r.id === '10');
        const { notes, ...stored } = (await store.getIncident('10'))!;
        expect(notes).toEqual([]);
        expect(listed).toEqual({ ...stored, sortKey: expect.any(Number), noteCount: 0, latestNote: null });
        expect((await store.recentlyUpdated({}, 1))[0]).toMatchObject({ id: '10', noteCount: 0, latestNote: null });
      });

      it('counts as ongoing exactly what isOngoing says, whatever the status is called', async () => {
        const statuses = ['canceled', 'completed', 'scheduled', 'investigating'];
        await applyPollOf(
          store,
          statuses.map((status, i) => rawIncident({ id: 20 + i, status })),
          T0 + 1,
        );
        const ongoing = ids(await store.ongoingIncidents())
          .filter((id) => Number(id) >= 20)
          .sort();
        expect(ongoing).toEqual(['22', '23']);
        expect(statuses.filter((status) => isOngoing(status))).toEqual(['scheduled', 'investigating']);
      });

      it('lists the most recently updated first, by service, however old their creation', async () => {
        // 1 was created first of all, but updated last: it leads, ahead of newer creations.
        await applyPollOf(store, [{ ...threeIncidents()[0]!, date_updated: '2026-09-20T10:00:00-07:00' }], T0 + 1);
        expect(ids(await store.recentlyUpdated({}, 10))).toEqual(['1', '3', '2']);
        expect(ids(await store.recentlyUpdated({ services: ['Huddles'] }, 10))).toEqual(['2']);
        expect(ids(await store.recentlyUpdated({}, 2))).toEqual(['1', '3']);
        expect((await store.recentlyUpdated({}, 1))[0]).toMatchObject({ noteCount: 2, latestNote: { text: 'A third-party app is stuck in a loop.' } });
      });

      it('lists ongoing incidents with their notes, and those updated since an instant (inclusive), newest update first', async () => {
        const ongoing = await store.ongoingIncidents();
        expect(ids(ongoing).sort()).toEqual(['2', '3']);
        expect(ongoing.find((i) => i.id === '3')).toEqual(archivedAs(threeIncidents()[2]!, { revision: 1, resolvedAt: null, firstSeenAt: T0, lastSeenAt: T0 }));
        expect(ids(await store.incidentsUpdatedSince(Date.parse('2026-08-01T00:00:00Z'), 10))).toEqual(['3', '2']);
        expect(ids(await store.incidentsUpdatedSince(Date.parse('2026-08-02T10:00:00-07:00'), 10))).toEqual(['3', '2']);
        expect(ids(await store.incidentsUpdatedSince(Date.parse('2026-08-02T10:00:00-07:00') + 1, 10))).toEqual(['3']);
        expect(ids(await store.incidentsUpdatedSince(0, 2))).toEqual(['3', '2']);
        expect((await store.incidentsUpdatedSince(0, 10)).find((i) => i.id === '1')?.resolvedAt).toBe(Date.parse('2026-10-01T05:56:59-07:00'));
      });

      it('gives the incident created last, with its notes', async () => {
        expect(await store.latestCreatedIncident()).toEqual(
          archivedAs(threeIncidents()[2]!, { revision: 1, resolvedAt: null, firstSeenAt: T0, lastSeenAt: T0 }),
        );
      });
    });

    it('finds an edited note by its new words, and a status change keeps the incident found', async () => {
      const base = rawIncident({ id: 1579, services: ['Files', 'Search'] });
      await applyPollOf(store, [base], T0);
      await applyPollOf(store, [{ ...base, status: 'resolved' }], T0 + 1);
      expect(ids(await store.listIncidents({ q: q('loop') }, null, 10))).toEqual(['1579']);
      expect(ids(await store.listIncidents({ services: ['Search'] }, null, 10))).toEqual(['1579']);
      expect((await store.getIncident('1579'))?.status).toBe('resolved');
      const edited = { ...base, status: 'resolved', notes: [base.notes[0]!, { ...base.notes[1]!, body: '<p>Zeppelin traffic</p>' }] };
      await applyPollOf(store, [edited], T0 + 2);
      expect(ids(await store.listIncidents({ q: q('zeppelin') }, null, 10))).toEqual(['1579']);
      expect(await store.listIncidents({ q: q('loop') }, null, 10)).toEqual([]);
    });

    it('lists every service name an archived incident names, each once, in code-unit order, at most the limit', async () => {
      await applyPollOf(
        store,
        [
          rawIncident({ id: 1, services: ['Search', 'Files'] }),
          rawIncident({ id: 2, services: ['Files', 'Old Name'] }),
          rawIncident({ id: 3, status: 'resolved', services: ['Calls', 'apps'] }),
        ],
        T0,
      );
      expect(await store.knownServices(100)).toEqual(['Calls', 'Files', 'Old Name', 'Search', 'apps']);
      // The bound: a feed that invents names cannot grow the list (and its cache) past it.
      expect(await store.knownServices(2)).toEqual(['Calls', 'Files']);
      // A name no archived incident uses any more is no longer offered, nor matched.
      await applyPollOf(store, [rawIncident({ id: 2, services: ['Files'] })], T0 + 1);
      expect(await store.knownServices(100)).toEqual(['Calls', 'Files', 'Search', 'apps']);
      expect(ids(await store.listIncidents({ services: ['Old Name'] }, null, 10))).toEqual([]);
    });

    it('takes filters of hundreds of values, as a query string can carry them', async () => {
      // `?service=a,b,c,...` is the client's to make long: D1 binds at most 100 values a statement.
      await applyPollOf(store, threeIncidents(), T0);
      const many = (real: string, prefix: string) => [...Array.from({ length: 150 }, (_, i) => `${prefix} ${i}`), real];
      const filter = { services: many('Huddles', 'Service'), types: many('outage', 'type'), statuses: many('active', 'status') };
      expect(ids(await store.listIncidents(filter, null, 10))).toEqual(['2']);
      expect(ids(await store.listIncidents({ ...filter, q: q('drop') }, null, 10))).toEqual(['2']);
      expect(ids(await store.recentlyUpdated({ services: many('Files', 'Service') }, 10))).toEqual(['2', '1']);
    });

    it('keeps since inclusive and until exclusive at millisecond precision', async () => {
      const at = (iso: string, id: number) => rawIncident({ id, date_created: iso, date_updated: iso, notes: [] });
      await applyPollOf(store, [at('2026-09-01T10:00:00.250Z', 1), at('2026-09-01T10:00:00.750Z', 2), at('2026-09-01T10:00:01.000Z', 3)], T0);
      const created = async (sinceMs?: number, untilMs?: number) => (await store.listIncidents({ sinceMs, untilMs }, null, 10)).map((r) => r.dateCreated.raw);
      const t = Date.parse('2026-09-01T10:00:00.750Z');
      expect(await created(t)).toEqual(['2026-09-01T10:00:01.000Z', '2026-09-01T10:00:00.750Z']);
      expect(await created(undefined, t)).toEqual(['2026-09-01T10:00:00.250Z']);
      expect(await created(undefined, t + 250)).toEqual(['2026-09-01T10:00:00.750Z', '2026-09-01T10:00:00.250Z']);
      expect(await created(t + 250)).toEqual(['2026-09-01T10:00:01.000Z']);
      expect(await created(t + 251)).toEqual([]);
    });

    it('pages every filter through the cursor without a gap or a repeat', async () => {
      // 30 incidents, in groups of three created in the same instant, an hour between groups.
      const base = Date.UTC(2026, 5, 1, 8, 0, 0);
      const createdMs = (i: number) => base + Math.floor(i / 3) * HOUR_MS;
      const raws = Array.from({ length: 30 }, (_, i) => {
        const at = new Date(createdMs(i)).toISOString();
        return rawIncident({
          id: 100 + i,
          title: i % 2 === 0 ? `Uploads fail in region ${i}` : `Calls drop in region ${i}`,
          type: i % 4 === 0 ? 'outage' : 'incident',
          status: i % 5 === 0 ? 'active' : 'resolved',
          services: [['Files'], ['Calls', 'Files'], ['Messaging']][i % 3]!,
          date_created: at,
          date_updated: at,
          notes: [{ body: `<p>Note ${i}</p>`, date_created: at }],
        });
      });
      // In two polls, so arrival order and poll order both count.
      await applyPollOf(store, raws.slice(0, 17), T0);
      await applyPollOf(store, raws.slice(17), T0 + 1);

      // The expected order from the scenario alone: newest creation first, then latest arrival.
      const newestFirst = raws.map((raw, i) => ({ raw, i })).sort((a, b) => createdMs(b.i) - createdMs(a.i) || b.i - a.i);
      const g = (group: number) => base + group * HOUR_MS;
      const cases: [IncidentFilter, (raw: RawIncident, i: number) => boolean][] = [
        [{}, () => true],
        [{ services: ['Files'] }, (r) => r.services.includes('Files')],
        [{ services: ['Calls', 'Messaging'] }, (r) => r.services.includes('Calls') || r.services.includes('Messaging')],
        [{ types: ['outage'] }, (r) => r.type === 'outage'],
        [{ statuses: ['active'] }, (r) => r.status === 'active'],
        [{ sinceMs: g(3), untilMs: g(7) }, (_r, i) => createdMs(i) >= g(3) && createdMs(i) < g(7)],
        // One millisecond either side of a second's edge: the group at the edge goes out, or comes in.
        [{ sinceMs: g(3) + 1, untilMs: g(7) + 1 }, (_r, i) => createdMs(i) > g(3) && createdMs(i) <= g(7)],
        [{ sinceMs: g(3) - 1, untilMs: g(7) - 1 }, (_r, i) => createdMs(i) >= g(3) && createdMs(i) < g(7)],
        [{ q: q('uploads') }, (r) => r.title.startsWith('Uploads')],
        [{ q: q('region upl') }, (r) => r.title.startsWith('Uploads')],
        [{ q: q('note'), services: ['Messaging'], statuses: ['resolved'] }, (r) => r.services.includes('Messaging') && r.status === 'resolved'],
        [{ q: q('calls'), sinceMs: g(2) + 1, untilMs: g(8) }, (r, i) => r.title.startsWith('Calls') && createdMs(i) > g(2) && createdMs(i) < g(8)],
        [
          { types: ['incident'], statuses: ['resolved'], services: ['Files'], untilMs: g(9) },
          (r, i) => r.type === 'incident' && r.status === 'resolved' && r.services.includes('Files') && createdMs(i) < g(9),
        ],
      ];
      for (const [filter, wanted] of cases) {
        const expected = newestFirst.filter(({ raw, i }) => wanted(raw, i)).map(({ raw }) => String(raw.id));
        expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0);
        for (const pageSize of [1, 4, 100]) {
          expect(ids(await allPages(store, filter, pageSize)), `${JSON.stringify(filter)} by ${pageSize}`).toEqual(expected);
        }
      }
    });

    it('refuses a search whose words match more incidents than one request may examine, when filters leave less than a page', async () => {
      // More incidents say "degraded" than a search examines; only the oldest is a Calls incident.
      const count = SEARCH_LIMITS.maxMatchesExamined + 1;
      const day = Date.UTC(2010, 0, 1, 12);
      const raws = Array.from({ length: count }, (_, i) => {
        const at = new Date(day + i * 86_400_000).toISOString();
        return rawIncident({
          id: 10_000 + i,
          title: `Degraded messages ${i}`,
          status: 'resolved',
          services: [i === 0 ? 'Calls' : 'Messaging'],
          date_created: at,
          date_updated: at,
          notes: [],
        });
      });
      // In pieces, as the poller writes a large backfill.
      for (let start = 0; start < count; start += 1000) await applyPollOf(store, raws.slice(start, start + 1000), T0 + start);

      await expect(store.listIncidents({ q: q('degraded'), services: ['Calls'] }, null, 10)).rejects.toBeInstanceOf(SearchTooBroadError);
      // A count reads no more matches than a page does: past the budget it is a floor, said as such.
      expect(await store.countIncidents({ q: q('degraded') }, 100_000)).toEqual({ count: SEARCH_LIMITS.maxMatchesExamined, exact: false });
      expect(await store.countIncidents({ q: q('degraded'), services: ['Calls'] }, 100_000)).toEqual({ count: 0, exact: false });
      expect(await store.countIncidents({ services: ['Messaging'] }, 100_000)).toEqual({ count: count - 1, exact: true });
      // A full page is an answer: the newest matches, and a cursor to the next.
      expect(ids(await store.listIncidents({ q: q('degraded') }, null, 3))).toEqual(['15000', '14999', '14998']);
      // The API's largest search page, plus the row that says another page follows.
      const page = await store.listIncidents({ q: q('degraded') }, null, SEARCH_LIMITS.maxPageSize + 1);
      expect(ids(page)).toEqual(Array.from({ length: SEARCH_LIMITS.maxPageSize + 1 }, (_, i) => String(15_000 - i)));
      // Narrowed by time, the same words and service find it.
      const narrowed = { q: q('degraded'), services: ['Calls'], untilMs: day + 10 * 86_400_000 };
      expect(ids(await store.listIncidents(narrowed, null, 10))).toEqual(['10000']);
      // Without words, the filter alone walks no budget.
      expect(ids(await store.listIncidents({ services: ['Calls'] }, null, 10))).toEqual(['10000']);
    });

    it('lists events in the order they were recorded, by type, incident and backfill, a page after a sequence number', async () => {
      const seeding = await applyPollOf(store, [rawIncident({ id: 1 })], T0);
      const resolved = rawIncident({
        id: 1,
        status: 'resolved',
        title: 'Renamed',
        date_updated: '2026-10-01T06:30:00-07:00',
        notes: [...rawIncident().notes, { body: '<p>Resolved.</p>', date_created: '2026-10-01T06:30:00-07:00' }],
      });
      const news = await applyPollOf(store, [resolved, rawIncident({ id: 2 })], T0 + 1);
      const planned = [
        ...seeding.input.plan.events.map((e) => ({ ...e, pollRunId: seeding.input.run.id })),
        ...news.input.plan.events.map((e) => ({ ...e, pollRunId: news.input.run.id })),
      ];

      const all = await store.listEvents({}, 0, 100);
      // Each event exactly as planned, with the run that wrote it, in a strictly rising sequence.
      expect(all.map(({ seq: _seq, ...event }) => event)).toEqual(planned);
      expect(all.every((e, i) => i === 0 || e.seq > all[i - 1]!.seq)).toBe(true);
      const paged: number[] = [];
      for (let after = 0, page = await store.listEvents({}, after, 2); page.length > 0; after = page.at(-1)!.seq, page = await store.listEvents({}, after, 2)) {
        paged.push(...page.map((e) => e.seq));
      }
      expect(paged).toEqual(all.map((e) => e.seq));

      expect((await store.listEvents({ types: ['incident.created'] }, 0, 100)).map((e) => e.incidentId)).toEqual(['1', '2']);
      expect((await store.listEvents({ types: ['incident.updated', 'incident.note_added'] }, 0, 100)).map((e) => e.type)).toEqual(
        planned.filter((e) => e.type === 'incident.updated' || e.type === 'incident.note_added').map((e) => e.type),
      );
      expect((await store.listEvents({ incidentId: '2' }, 0, 100)).map((e) => e.type)).toEqual(['incident.created']);
      expect((await store.listEvents({ includeBackfill: false, incidentId: '1' }, 0, 100)).map((e) => e.revision)).toEqual(
        news.input.plan.events.filter((e) => e.incidentId === '1').map(() => 2),
      );
      expect(await store.listEvents({}, all.at(-1)!.seq, 10)).toEqual([]);
      // What changed since an instant: the news of the second poll, none of the seeding's.
      const since = (ms: number) => store.listEvents({ detectedSinceMs: ms }, 0, 100);
      expect((await since(T0 + 1)).map((e) => e.id)).toEqual(news.input.plan.events.map((e) => e.id));
      expect(await since(T0 + 2)).toEqual([]);
      expect(await since(T0)).toHaveLength(all.length);
    });

    it('counts consecutive failures since the last success, a partial poll being one', async () => {
      expect(await store.feedHealth()).toEqual({ lastRun: null, lastSuccessAt: null, consecutiveFailures: 0 });
      await store.recordPollRun(pollRun(T0, 'failed'), []);
      expect(await store.feedHealth()).toMatchObject({ lastSuccessAt: null, consecutiveFailures: 1 });
      await store.recordPollRun(pollRun(T0 + 60_000, 'ok'), []);
      await store.recordPollRun(pollRun(T0 + 120_000, 'failed'), []);
      const last = pollRun(T0 + 180_000, 'failed', { error: 'v2/current: HTTP 503' });
      await store.recordPollRun(last, []);
      expect(await store.feedHealth()).toEqual({ lastRun: last, lastSuccessAt: T0 + 60_000, consecutiveFailures: 2 });
      await store.recordPollRun(pollRun(T0 + 240_000, 'partial'), []);
      expect(await opened.openAnother().feedHealth()).toMatchObject({ lastSuccessAt: T0 + 240_000, consecutiveFailures: 0 });
    });

    it('lists poll runs newest first, before a start time (exclusive), at most the limit', async () => {
      const runs = [0, 1, 2, 3, 4].map((i) => pollRun(T0 + i * 60_000, i % 2 === 0 ? 'ok' : 'failed'));
      for (const run of [runs[3]!, runs[0]!, runs[4]!, runs[1]!, runs[2]!]) await store.recordPollRun(run, []);
      expect(ids(await store.listPollRuns(null, 10))).toEqual(ids([...runs].reverse()));
      expect(ids(await store.listPollRuns(null, 2))).toEqual([runs[4]!.id, runs[3]!.id]);
      expect(ids(await store.listPollRuns(runs[3]!.startedAt, 2))).toEqual([runs[2]!.id, runs[1]!.id]);
      expect(await store.listPollRuns(runs[0]!.startedAt, 10)).toEqual([]);
      expect(await store.getPollRun(runs[2]!.id)).toEqual({ run: runs[2], rejected: [] });
    });

    it('makes a secret on first use and gives the same one after, to every store', async () => {
      let made = 0;
      const generate = () => `secret-${++made}`;
      expect(await store.secret('cursor', generate)).toBe('secret-1');
      expect(await store.secret('cursor', generate)).toBe('secret-1');
      expect(await opened.openAnother().secret('cursor', generate)).toBe('secret-1');
      expect(await store.secret('other', generate)).not.toBe('secret-1');
    });

    it('gives every store racing to make a secret the same one', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const secrets = await Promise.all(stores.map((s, i) => s.secret('signing', () => `made-by-${i}`)));
      expect(new Set(secrets).size).toBe(1);
      expect(await store.secret('signing', () => 'late')).toBe(secrets[0]);
    });

    describe('incident spans', () => {
      const SEEDING_POLL = Date.UTC(2026, 9, 1, 12, 0, 0);
      const LATER_POLL = Date.UTC(2026, 9, 2, 12, 0, 0);
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

      it('returns incidents going on at any time since the instant: ongoing, or resolved at or after it', async () => {
        await applyPollOf(
          store,
          [resolvedOn(1, '2026-09-01'), resolvedOn(2, '2026-09-10'), rawIncident({ id: 3, date_created: '2026-08-01T10:00:00-07:00' })],
          SEEDING_POLL,
        );
        const resolvedAt2 = Date.parse('2026-09-10T12:00:00-07:00');
        expect((await store.incidentSpans(resolvedAt2, 'main')).map((s) => s.id)).toEqual(['3', '2']);
        expect((await store.incidentSpans(resolvedAt2 + 1, 'main')).map((s) => s.id)).toEqual(['3']);
        expect((await store.incidentSpans(0, 'main')).map((s) => s.id)).toEqual(['3', '1', '2']);
      });

      it('reads times, services and the first update after the opening note', async () => {
        await applyPollOf(store, [resolvedOn(1, '2026-09-01', ['Files', 'Search']), rawIncident({ id: 2, notes: [rawIncident().notes[0]!] })], SEEDING_POLL);
        const [first, second] = await store.incidentSpans(0, 'main');
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
        await applyPollOf(store, [rawIncident({ id: 1 })], BEFORE_HISTORY, { historyRead: false });
        expect((await store.incidentSpans(0, 'main')).map((s) => s.backfill)).toEqual([true]);
        await applyPollOf(store, [rawIncident({ id: 1 }), rawIncident({ id: 2, date_created: '2026-10-01T06:00:00-07:00' })], SEEDING_POLL);
        await applyPollOf(
          store,
          [
            rawIncident({ id: 1, status: 'resolved' }),
            rawIncident({ id: 2, date_created: '2026-10-01T06:00:00-07:00' }),
            rawIncident({ id: 3, date_created: '2026-10-02T04:00:00-07:00' }),
          ],
          LATER_POLL,
        );
        const spans = await store.incidentSpans(0, 'main');
        expect(spans.map((s) => [s.id, s.backfill, s.firstSeenAt])).toEqual([
          ['1', true, BEFORE_HISTORY],
          ['2', true, SEEDING_POLL],
          ['3', false, LATER_POLL],
        ]);
        const created = await store.listEvents({ types: ['incident.created'] }, 0, 100);
        expect(created.map((e) => [e.incidentId, e.backfill]).sort()).toEqual(spans.map((s) => [s.id, s.backfill]));
      });
    });

    it('plans nothing for a poll that saw what is archived', async () => {
      await applyPollOf(store, threeIncidents(), T0);
      const again = await planPollOf(store, threeIncidents(), T0 + 1);
      expect(again.plan).toEqual({ writes: [], events: [] });
    });
  });
}
