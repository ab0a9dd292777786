/**
 * The archive's write contract (PollStore without its leases): what a poll writes, atomically and
 * only against the revision it was planned from, read back through the port alone. Polls are
 * planned by the core exactly as the poller plans them (archive-polls.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RevisionConflictError } from '../../src/core/errors.ts';
import type { ApplyPollInput, Store } from '../../src/core/ports.ts';
import { componentEvents } from '../../src/core/statuspage/component-events.ts';
import { type ComponentState, MAIN_FEED_SOURCE } from '../../src/core/statuspage/mapping.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { applyPollOf, archivedAs, LAST_SEEN_PRECISION_MS, planPollOf, pollRun, rejectedPayload, subscribe } from './archive-polls.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Incident 1 resolved with a final note: a status change and a note, both news to subscribers. */
const resolvedFirst = rawIncident({
  id: 1,
  status: 'resolved',
  date_updated: '2026-10-01T06:30:00-07:00',
  notes: [...rawIncident().notes, { body: '<p>Resolved: the app was disabled.</p>', date_created: '2026-10-01T06:30:00-07:00' }],
});

/** Everything a reader can learn of the archive through the port, to compare before and after a refused write. */
async function everythingVisible(store: Store, incidentIds: string[]) {
  return {
    incidents: await Promise.all(incidentIds.map((id) => store.getIncident(id))),
    versions: await Promise.all(incidentIds.map((id) => store.listVersions(id, 100))),
    events: await store.listEvents({}, 0, 1000),
    deliveries: await store.listDeliveries({}, null, 1000),
    runs: await store.listPollRuns(null, 1000),
    generation: await store.archiveGeneration(),
    seeded: await store.isSeeded(),
    listed: await store.listIncidents({}, null, 100),
  };
}

export function archiveWritesContract(target: StoreTarget): void {
  describe(`archive writes (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it("writes a source's poll without a run in the main feed's history, its incidents and events kept", async () => {
      const input = await planPollOf(store, [rawIncident({ id: 2 })], T0);
      await store.applyPoll({ ...input, recordRun: false });
      expect(await store.listPollRuns(null, 10)).toEqual([]);
      expect((await store.feedHealth()).lastRun).toBeNull();
      expect((await store.getIncident('2'))?.revision).toBe(1);
      expect((await store.listEvents({}, 0, 10)).map((e) => e.id)).toEqual(input.plan.events.map((e) => e.id));
    });

    it("moves the archive generation with a source's writes, and the main feed's generation only with its own", async () => {
      const main = await applyPollOf(store, [rawIncident({ id: 1 })], T0);
      const mainGeneration = (await store.lastDiff()).generation;
      expect(mainGeneration).not.toBe(0);
      const input = await planPollOf(store, [rawIncident({ id: 2 })], T0 + MINUTE_MS);
      await store.addSource({ id: 'src_acme', kind: 'statuspage', name: 'Acme', url: 'https://status.acme.example', createdAt: T0 }, 10);
      const afterSource = await store.applyPoll({ ...input, recordRun: false, source: 'src_acme' });
      expect(afterSource).not.toBe(main.generation);
      expect(await store.archiveGeneration()).toBe(afterSource);
      expect((await store.lastDiff()).generation).toBe(mainGeneration);
      // The main feed's next write moves it again.
      await applyPollOf(store, [rawIncident({ id: 1, title: 'Edited' })], T0 + 2 * MINUTE_MS);
      expect((await store.lastDiff()).generation).not.toBe(mainGeneration);
    });

    it('reads an incident back exactly as the feed showed it, from this store and from another', async () => {
      const raw = rawIncident({ services: ['Messaging', 'Files'] });
      await applyPollOf(store, [raw], T0);
      const expected = archivedAs(raw, { revision: 1, resolvedAt: null, firstSeenAt: T0, lastSeenAt: T0 });
      expect(await store.getIncident('1579')).toEqual(expected);
      // Another process (or isolate) reads the same row, notes in order, times to the millisecond.
      const other = opened.openAnother();
      expect(await other.getIncident('1579')).toEqual(expected);
      expect(await other.loadIncidents(['1579', '404'])).toEqual(new Map([['1579', expected]]));
      expect(await other.loadRevisions(['404', '1579'])).toEqual(new Map([['1579', 1]]));
      expect(await other.getIncident('404')).toBeNull();
    });

    it('loads revisions and incidents of hundreds of ids in one call', async () => {
      // More ids than D1 binds in one statement (100): lists must not become one parameter per id.
      const raws = Array.from({ length: 150 }, (_, i) => rawIncident({ id: 5000 + i, notes: [] }));
      await applyPollOf(store, raws, T0);
      const asked = Array.from({ length: 300 }, (_, i) => String(5000 + i));
      const revisions = await store.loadRevisions(asked);
      expect(revisions.size).toBe(150);
      expect([...revisions.values()].every((r) => r === 1)).toBe(true);
      const loaded = await store.loadIncidents(asked);
      expect([...loaded.keys()].sort()).toEqual(raws.map((r) => String(r.id)).sort());
    });

    it('keeps every version of an incident, oldest first, each the whole incident as the feed showed it', async () => {
      const first = await applyPollOf(store, [rawIncident()], T0);
      const renamed = rawIncident({ title: 'Edited title' });
      const second = await applyPollOf(store, [renamed], T0 + MINUTE_MS);
      const third = await applyPollOf(store, [{ ...renamed, ...resolvedFirst, id: 1579, title: 'Edited title' }], T0 + 2 * MINUTE_MS);
      const versions = await store.listVersions('1579', 100);
      expect(versions).toEqual([
        { revision: 1, recordedAt: T0, pollRunId: first.input.run.id, incident: rawIncident() },
        { revision: 2, recordedAt: T0 + MINUTE_MS, pollRunId: second.input.run.id, incident: renamed },
        { revision: 3, recordedAt: T0 + 2 * MINUTE_MS, pollRunId: third.input.run.id, incident: { ...resolvedFirst, id: 1579, title: 'Edited title' } },
      ]);
      expect((await store.listVersions('1579', 2)).map((v) => v.revision)).toEqual([1, 2]);
      expect(await store.listVersions('404', 10)).toEqual([]);
    });

    it('refuses a piece whose incident another writer moved since it was planned, and keeps nothing of it', async () => {
      await applyPollOf(store, [rawIncident({ id: 1 })], T0);
      await subscribe(store, 'sub_all', T0);
      // This poller plans incident 1's resolution, a new incident 2 and a page it could not read...
      const mine = await planPollOf(store, [resolvedFirst, rawIncident({ id: 2, title: 'Second incident' })], T0 + 2 * MINUTE_MS, {
        rejected: [rejectedPayload('<html>maintenance</html>', 'ab')],
        seenBefore: T0 + MINUTE_MS,
      });
      expect(mine.deliveries.length).toBeGreaterThan(0);
      // ...while another process applies its own change of incident 1 first.
      const other = opened.openAnother();
      await applyPollOf(other, [rawIncident({ id: 1, title: 'Renamed by the other poller' })], T0 + MINUTE_MS);
      const before = await everythingVisible(store, ['1', '2']);

      const refused = store.applyPoll(mine);
      await expect(refused).rejects.toBeInstanceOf(RevisionConflictError);
      await expect(refused).rejects.toMatchObject({ incidentId: '1', expected: 1, found: 2, retryable: true });

      // Nothing of the piece: no incident, version, event, outbox row, poll run, last_seen refresh.
      expect(await everythingVisible(store, ['1', '2'])).toEqual(before);
      expect(await other.getPollRun(mine.run.id)).toBeNull();
      expect(await store.loadRevisions(['1', '2'])).toEqual(new Map([['1', 2]]));
      // Nor the rejected page: there is no body to prune.
      expect(await store.pruneRejectedBodies(Number.MAX_SAFE_INTEGER, 0, 100)).toBe(0);

      // Planned again on what is archived now, the same poll goes in whole.
      const again = await planPollOf(store, [resolvedFirst, rawIncident({ id: 2, title: 'Second incident' })], T0 + 2 * MINUTE_MS);
      await store.applyPoll(again);
      expect(await store.getIncident('1')).toMatchObject({ status: 'resolved', title: resolvedFirst.title, revision: 3 });
      expect(await store.getIncident('2')).toMatchObject({ title: 'Second incident', revision: 1 });
      // Their rename's deliveries, and now this poll's.
      expect((await store.listDeliveries({}, null, 100)).length).toBe(before.deliveries.length + again.deliveries.length);
    });

    it("keeps a source's component states with the events of their changes, both or neither", async () => {
      const acme = { id: 'src_acme', name: 'Acme Cloud' };
      await store.addSource({ ...acme, kind: 'statuspage', url: 'https://status.acme.example', createdAt: T0 }, 10);
      const api = (status: ComponentState['status']): ComponentState => ({
        id: 'c1',
        name: 'API',
        status,
        vendorStatus: status,
        groupId: null,
        position: 1,
        isGroup: false,
      });
      const sourcePoll = async (now: number, components: ComponentState[], raws = [rawIncident({ id: 1 })]) => {
        const kept = new Map((await store.componentStates(acme.id)).map((c) => [c.id, c]));
        const input = await planPollOf(store, raws, now);
        const flips = componentEvents({ source: acme, kept, read: components, detectedAt: now });
        return { ...input, plan: { ...input.plan, events: [...input.plan.events, ...flips] }, recordRun: false, source: acme.id, components };
      };
      await store.applyPoll(await sourcePoll(T0, [api('operational')]));
      expect(await store.componentStates(acme.id)).toEqual([{ ...api('operational'), updatedAt: T0 }]);

      // A piece refused (another writer moved incident 1 since it was planned) keeps neither the
      // new state nor its event.
      const refused = await sourcePoll(T0 + MINUTE_MS, [api('major_outage')], [resolvedFirst]);
      expect(refused.plan.events.map((e) => e.type)).toContain('component.status_changed');
      await applyPollOf(opened.openAnother(), [rawIncident({ id: 1, title: 'Renamed by the other poller' })], T0 + MINUTE_MS);
      await expect(store.applyPoll(refused)).rejects.toBeInstanceOf(RevisionConflictError);
      expect(await store.componentStates(acme.id)).toEqual([{ ...api('operational'), updatedAt: T0 }]);
      expect(await store.listEvents({ source: acme.id }, 0, 10)).toEqual([]);

      // Planned again, both go in; applied twice, the event is kept once, under the source.
      const again = await sourcePoll(T0 + 2 * MINUTE_MS, [api('major_outage')], []);
      await store.applyPoll(again);
      await store.applyPoll(again);
      expect(await store.componentStates(acme.id)).toEqual([{ ...api('major_outage'), updatedAt: T0 + 2 * MINUTE_MS }]);
      const logged = await store.listEvents({ source: acme.id }, 0, 10);
      expect(logged.map((e) => [e.type, e.incidentId, e.data])).toEqual([
        [
          'component.status_changed',
          'src_acme:component:c1',
          {
            type: 'component.status_changed',
            source: acme,
            component: { id: 'c1', name: 'API' },
            from: 'operational',
            to: 'major_outage',
            from_state: 'Operational',
            to_state: 'Outage',
          },
        ],
      ]);
      expect(await store.listEvents({ source: 'main', types: ['component.status_changed'] }, 0, 10)).toEqual([]);
    });

    it('refuses a new incident another writer created first', async () => {
      await applyPollOf(store, [], T0);
      const mine = await planPollOf(store, [rawIncident({ id: 3, title: 'Mine' })], T0 + MINUTE_MS);
      await applyPollOf(opened.openAnother(), [rawIncident({ id: 3, title: 'Theirs' })], T0 + MINUTE_MS);
      await expect(store.applyPoll(mine)).rejects.toMatchObject({ name: 'RevisionConflictError', incidentId: '3', expected: null, found: 1 });
      expect(await store.getIncident('3')).toMatchObject({ title: 'Theirs', revision: 1 });
      expect((await store.listEvents({ incidentId: '3' }, 0, 10)).map((e) => e.pollRunId)).not.toContain(mine.run.id);
      expect(await store.getPollRun(mine.run.id)).toBeNull();
    });

    it('lets exactly one of two pollers racing to write the same change win, and records it once', async () => {
      await applyPollOf(store, [rawIncident({ id: 1 })], T0);
      const others = [opened.openAnother(), opened.openAnother()];
      // Both planned against revision 1, before either writes: two processes polling at once.
      const plans = await Promise.all(others.map((other, i) => planPollOf(other, [resolvedFirst], T0 + (i + 1) * MINUTE_MS)));
      const outcomes = await Promise.allSettled(others.map((other, i) => other.applyPoll(plans[i]!)));
      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(RevisionConflictError);
      expect((await store.listVersions('1', 10)).map((v) => [v.revision, v.pollRunId])).toEqual([
        [1, expect.any(String)],
        [2, plans[won[0]!]!.run.id],
      ]);
      expect((await store.listEvents({ incidentId: '1', includeBackfill: false }, 0, 10)).map((e) => e.pollRunId)).toEqual(
        plans[won[0]!]!.plan.events.map(() => plans[won[0]!]!.run.id),
      );
      expect(await store.getPollRun(plans[1 - won[0]!]!.run.id)).toBeNull();
    });

    it('moves the generation on every incident write, a last_seen refresh included, and every store reads the same', async () => {
      const other = opened.openAnother();
      const empty = await store.archiveGeneration();
      const created = await applyPollOf(store, [rawIncident()], T0);
      expect(created.generation).not.toBe(empty);
      expect(await store.archiveGeneration()).toBe(created.generation);
      expect(await other.archiveGeneration()).toBe(created.generation);

      // The same feed a minute later: nothing to write, and last_seen is recent enough.
      const unchanged = await applyPollOf(store, [rawIncident()], T0 + MINUTE_MS);
      expect(unchanged.input.plan.writes).toEqual([]);
      expect(unchanged.generation).toBe(created.generation);
      expect((await store.getIncident('1579'))?.lastSeenAt).toBe(T0);

      // Still unchanged, but last_seen is refreshed: a row was written, so the generation moves.
      const later = T0 + LAST_SEEN_PRECISION_MS + MINUTE_MS;
      const refreshed = await applyPollOf(store, [rawIncident()], later);
      expect(refreshed.input.plan.writes).toEqual([]);
      expect(refreshed.generation).not.toBe(created.generation);
      expect(await other.archiveGeneration()).toBe(refreshed.generation);
      expect((await other.getIncident('1579'))?.lastSeenAt).toBe(later);

      // A write through the other store is what this one reads next.
      const edited = await applyPollOf(other, [rawIncident({ title: 'Edited elsewhere' })], later + MINUTE_MS);
      expect(await store.archiveGeneration()).toBe(edited.generation);
      expect(new Set([empty, created.generation, refreshed.generation, edited.generation]).size).toBe(4);
    });

    it('keeps what the last full diff read with the generation its piece left, for every store, until a piece forgets it', async () => {
      const other = opened.openAnother();
      expect(await store.lastDiff()).toEqual({ generation: 0, diffed: null });
      const sources = [
        { source: 'v2/current' as const, sha256: 'a'.repeat(64), incidents: 1, skipped: 0 },
        { source: 'v2/history' as const, sha256: 'b'.repeat(64), incidents: 1, skipped: 2 },
      ];
      const input = await planPollOf(store, [rawIncident()], T0);
      const generation = await store.applyPoll({ ...input, diffedFeed: { atMs: T0, sources } });
      expect(generation).not.toBe(0);
      expect(await other.lastDiff()).toEqual({ generation, diffed: { atMs: T0, generation, sources } });

      // A piece that says nothing of it leaves it; a write moves the generation past it.
      const edited = await applyPollOf(store, [rawIncident({ title: 'Edited' })], T0 + MINUTE_MS);
      expect(await other.lastDiff()).toEqual({ generation: edited.generation, diffed: { atMs: T0, generation, sources } });

      // A poll that left changes pending forgets it.
      const pending = await planPollOf(store, [rawIncident({ title: 'Edited' })], T0 + 2 * MINUTE_MS);
      await store.applyPoll({ ...pending, diffedFeed: null });
      expect((await store.lastDiff()).diffed).toBeNull();

      // Its incidents' digests and when last_seen was last refreshed for them come back as kept.
      const kept = await planPollOf(store, [rawIncident({ title: 'Edited' })], T0 + 3 * MINUTE_MS);
      const digests = { '1': [2, 'c'.repeat(32)] as [number, string] };
      const keptAt = await store.applyPoll({ ...kept, diffedFeed: { atMs: T0 + 3 * MINUTE_MS, sources, incidents: digests, seenRefreshedAtMs: T0 } });
      expect(await other.lastDiff()).toEqual({
        generation: keptAt,
        diffed: { atMs: T0 + 3 * MINUTE_MS, generation: keptAt, sources, incidents: digests, seenRefreshedAtMs: T0 },
      });
    });

    it('refreshes last_seen only of the incidents the poll saw, and only once it is older than seenBefore', async () => {
      await applyPollOf(store, [rawIncident({ id: 1 }), rawIncident({ id: 2 })], T0);
      const later = T0 + LAST_SEEN_PRECISION_MS + MINUTE_MS;
      // Only 1 is in the feed now (2 vanished from it): 2 keeps the time it was last seen.
      await applyPollOf(store, [rawIncident({ id: 1 })], later);
      expect((await store.getIncident('1'))?.lastSeenAt).toBe(later);
      expect((await store.getIncident('2'))?.lastSeenAt).toBe(T0);
      expect((await store.getIncident('1'))?.firstSeenAt).toBe(T0);
      // seenBefore is exclusive: seen exactly then is recent enough.
      await applyPollOf(store, [rawIncident({ id: 1 })], later + MINUTE_MS, { seenBefore: later });
      expect((await store.getIncident('1'))?.lastSeenAt).toBe(later);
    });

    it('records history as backfill until a poll that read it seeds the archive, and news after', async () => {
      expect(await store.isSeeded()).toBe(false);
      // A first poll that could not read the history: its incidents are backfill, the archive not seeded yet.
      await applyPollOf(store, [rawIncident({ id: 1 })], T0 - MINUTE_MS, { historyRead: false });
      expect(await store.isSeeded()).toBe(false);
      await applyPollOf(store, [rawIncident({ id: 1 }), rawIncident({ id: 2, date_created: '2026-10-01T05:00:00-07:00' })], T0);
      expect(await store.isSeeded()).toBe(true);
      expect(await opened.openAnother().isSeeded()).toBe(true);
      await applyPollOf(store, [resolvedFirst, rawIncident({ id: 2, date_created: '2026-10-01T05:00:00-07:00' }), rawIncident({ id: 3 })], T0 + MINUTE_MS);

      const events = await store.listEvents({}, 0, 100);
      expect(events.map((e) => [e.incidentId, e.type, e.backfill])).toEqual([
        ['1', 'incident.created', true],
        ['2', 'incident.created', true],
        ['3', 'incident.created', false],
        ['1', 'incident.status_changed', false],
        ['1', 'incident.note_added', false],
      ]);
      expect((await store.listEvents({ includeBackfill: false }, 0, 100)).map((e) => e.id)).toEqual(events.filter((e) => !e.backfill).map((e) => e.id));
    });

    it('writes the outbox rows with the events, and none for a subscription deleted or paused since planning', async () => {
      await applyPollOf(store, [], T0);
      await subscribe(store, 'sub_stays', T0);
      await subscribe(store, 'sub_leaves', T0);
      await subscribe(store, 'sub_pauses', T0);
      await subscribe(store, 'sub_files_only', T0, { services: ['Files'] });
      await subscribe(store, 'sub_mail', T0, {}, 'email');
      const poll = await planPollOf(store, [resolvedFirst], T0 + MINUTE_MS);
      expect(new Set(poll.deliveries.map((d) => d.subscriptionId))).toEqual(new Set(['sub_stays', 'sub_leaves', 'sub_pauses', 'sub_mail']));
      expect(await store.deleteSubscription('sub_leaves')).toBe(true);
      await store.updateSubscription('sub_pauses', { status: 'paused', pausedReason: 'admin' }, T0 + 1);
      await store.applyPoll(poll);

      // No row is left that no deliverer would ever claim; each one stands for the planned events.
      const written = await store.listDeliveries({}, null, 100);
      const expected = poll.deliveries.filter((d) => d.subscriptionId === 'sub_stays' || d.subscriptionId === 'sub_mail');
      expect(written.map((d) => [d.key, d.subscriptionId, d.channel, d.eventIds, d.state, d.attempts]).sort()).toEqual(
        expected.map((d) => [d.key, d.subscriptionId, d.channel, d.eventIds, 'pending', 0]).sort(),
      );
      // The events they name are archived in the same step.
      const archivedIds = new Set((await store.listEvents({ incidentId: '1' }, 0, 100)).map((e) => e.id));
      expect(written.flatMap((d) => d.eventIds).every((id) => archivedIds.has(id))).toBe(true);
      // The email subscriber gets one message for the resolution and its note together.
      expect(written.filter((d) => d.channel === 'email').map((d) => d.eventIds.length)).toEqual([poll.plan.events.length]);
    });

    it('writes an outbox row for every one of more than a thousand events of one poll', async () => {
      // Outbox rows go in as JSON lists of a thousand: the row after the first list must not be lost.
      await applyPollOf(store, [], T0);
      await subscribe(store, 'sub_all', T0);
      const incidents = Array.from({ length: 1001 }, (_, i) => rawIncident({ id: 20_000 + i, notes: [] }));
      const poll = await planPollOf(store, incidents, T0 + MINUTE_MS);
      expect(poll.deliveries).toHaveLength(incidents.length);
      await store.applyPoll(poll);
      const written = new Set<string>();
      for (
        let before: number | null = null, page = await store.listDeliveries({}, null, 400);
        page.length > 0;
        before = page.at(-1)!.id, page = await store.listDeliveries({}, before, 400)
      ) {
        for (const delivery of page) written.add(delivery.key);
      }
      expect(written).toEqual(new Set(poll.deliveries.map((d) => d.key)));
    });

    it('records a poll written in pieces as its last piece says, once', async () => {
      const full = await planPollOf(store, [rawIncident({ id: 1 }), rawIncident({ id: 2 })], T0);
      const [firstWrite, secondWrite] = full.plan.writes;
      const eventsOf = (id: string) => full.plan.events.filter((e) => e.incidentId === id);
      const firstPiece: ApplyPollInput = {
        ...full,
        run: { ...full.run, changes: { 'incident.created': 1 }, pendingIncidents: 1 },
        plan: { writes: [firstWrite!], events: eventsOf('1') },
        seenIds: [],
        markSeeded: false,
      };
      await store.applyPoll(firstPiece);
      // A process killed here leaves a run that says one incident is still to be written.
      expect((await store.getPollRun(full.run.id))?.run).toEqual(firstPiece.run);
      expect(await store.isSeeded()).toBe(false);

      const lastPiece: ApplyPollInput = { ...full, run: { ...full.run, finishedAt: T0 + 50 }, plan: { writes: [secondWrite!], events: eventsOf('2') } };
      await store.applyPoll(lastPiece);
      expect(await store.listPollRuns(null, 10)).toEqual([lastPiece.run]);
      expect(await store.isSeeded()).toBe(true);
      expect((await store.listEvents({}, 0, 10)).map((e) => [e.incidentId, e.pollRunId])).toEqual([
        ['1', full.run.id],
        ['2', full.run.id],
      ]);
    });

    it("keeps the main feed's blind spell once, however often a good read's run is written: its pieces, a retry, another poller that read the same last good read", async () => {
      const readAt = T0 + 2 * HOUR_MS;
      const spell = { since: T0, until: readAt };
      const run = pollRun(readAt, 'ok');
      // A run that applied nothing, written again (its write retried).
      await store.recordPollRun(run, [], undefined, spell);
      await store.recordPollRun(run, [], undefined, spell);
      // A poll that wrote in pieces: each piece records the run with the spell.
      const pieces = await planPollOf(store, [rawIncident({ id: 1 })], readAt);
      await store.applyPoll({ ...pieces, run: { ...pieces.run, id: run.id }, endedSpell: spell });
      expect(await store.blindSpells(MAIN_FEED_SOURCE, 0)).toEqual([spell]);
      // Another process polled a minute later, having read the same last good read: still one
      // spell, reaching to the later read.
      const other = opened.openAnother();
      await other.recordPollRun(pollRun(readAt + MINUTE_MS, 'ok'), [], undefined, { since: T0, until: readAt + MINUTE_MS });
      expect(await other.blindSpells(MAIN_FEED_SOURCE, 0)).toEqual([{ since: T0, until: readAt + MINUTE_MS }]);
      expect(await store.blindSpells(MAIN_FEED_SOURCE, 0)).toEqual([{ since: T0, until: readAt + MINUTE_MS }]);
    });

    it('records a poll that applied nothing, with what each source said', async () => {
      const failed = pollRun(T0, 'failed', {
        error: 'v2/current: HTTP 503; v2/history: timeout',
        sources: [
          { source: 'v2/current', path: '/api/v2.0.0/current', httpStatus: 503, bytes: 42, durationMs: 12, error: 'HTTP 503' },
          { source: 'v2/history', path: '/api/v2.0.0/history', durationMs: 10_000, error: 'timeout' },
        ],
      });
      const generation = await store.archiveGeneration();
      await store.recordPollRun(failed, []);
      expect(await store.getPollRun(failed.id)).toEqual({ run: failed, rejected: [] });
      expect(await opened.openAnother().listPollRuns(null, 10)).toEqual([failed]);
      expect(await store.archiveGeneration()).toBe(generation);
    });

    it('keeps each rejected body once, with how often and when it came', async () => {
      const page = rejectedPayload('<html>maintenance</html>', 'a');
      const first = pollRun(T0, 'failed');
      const second = pollRun(T0 + MINUTE_MS, 'failed');
      await store.recordPollRun(first, [page]);
      await store.recordPollRun(second, [page, { ...page, source: 'v2/history' }]);
      // A partial poll that applied incidents kept the same page too, in its own step.
      const third = await planPollOf(store, [rawIncident()], T0 + 2 * MINUTE_MS, { rejected: [page] });
      await store.applyPoll({ ...third, run: { ...third.run, outcome: 'partial' } });

      const body = { text: '<html>maintenance</html>', seenCount: 4, firstSeenAt: T0, lastSeenAt: T0 + 2 * MINUTE_MS };
      const shown = await store.getPollRun(first.id);
      expect(shown?.rejected).toEqual([{ source: 'v2/current', url: page.url, error: 'invalid JSON', sha256: page.sha256, receivedAt: T0, body }]);
      expect((await store.getPollRun(second.id))?.rejected.map((r) => [r.source, r.receivedAt, r.body])).toEqual([
        ['v2/current', T0 + MINUTE_MS, body],
        ['v2/history', T0 + MINUTE_MS, body],
      ]);
      expect((await store.getPollRun(third.run.id))?.rejected.map((r) => r.body)).toEqual([body]);
      // One copy: pruning every body removes exactly one.
      expect(await store.pruneRejectedBodies(Number.MAX_SAFE_INTEGER, 0, 100)).toBe(1);
    });

    it('keeps the start of a huge rejected body, small enough for any row of either database', async () => {
      // 3 MB of a broken feed in four-byte characters: D1 refuses rows over 1 MB.
      const huge = '\u{1F4A5}'.repeat(400_000) + '<html>';
      const run = pollRun(T0, 'failed');
      await store.recordPollRun(run, [rejectedPayload(huge, 'd')]);
      const kept = (await store.getPollRun(run.id))?.rejected[0]?.body?.text ?? '';
      expect(kept.length).toBeGreaterThan(10_000);
      expect(huge.startsWith(kept)).toBe(true);
      expect(new TextEncoder().encode(kept).length).toBeLessThanOrEqual(262_144);
    });

    it('keeps a rejected body in full, whatever characters it holds', async () => {
      const text = `<html>été \u{1F600} \u0000 ${'x'.repeat(60_000)}</html>`; // within the 65,536 characters kept
      const run = pollRun(T0, 'failed');
      await store.recordPollRun(run, [rejectedPayload(text, 'c')]);
      expect((await store.getPollRun(run.id))?.rejected[0]?.body?.text).toBe(text);
    });
  });
}
