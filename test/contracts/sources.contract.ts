/**
 * The sources contract: a source is added once per address and never past the cap, even when
 * many are added at once from several stores; it is listed and found from any store; removing
 * it takes its component states along; components keep the time their state last changed.
 * Purging a source deletes its whole archive in bounded steps and not one row of another
 * source's or the main feed's; while it purges it is neither listed nor found nor written to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planPoll } from '../../src/core/diff.ts';
import { SourceGoneError } from '../../src/core/errors.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import type { SourceRecord, Store } from '../../src/core/ports.ts';
import { BLIND_SPELLS_PER_SOURCE } from '../../src/core/retention.ts';
import { sourceLeaseName } from '../../src/core/statuspage/mapping.ts';
import { attemptOf } from '../fixtures/notification-builders.ts';
import { componentState as component } from '../helpers/component-states.ts';
import { one, type RawIncident, rawIncident } from '../fixtures/vendor-builders.ts';
import { pollRun, subscribe } from './archive-polls.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 27, 9);
const MINUTE_MS = 60_000;
const source = (n: number, url = `https://status${n}.example.com`): SourceRecord => ({
  id: `src_${n}`,
  kind: 'statuspage',
  name: `Vendor ${n}`,
  url,
  createdAt: T0 + n,
});
const NEVER_POLLED = {
  validators: {},
  lastSuccessAt: null,
  lastFailureAt: null,
  lastError: null,
  consecutiveFailures: 0,
  blindSince: null,
  blindToldAt: null,
};

/**
 * A poll of `source` (undefined: the main feed) as the pollers write one, with deliveries for the
 * active subscriptions: incident ids `source:vendorId`, or the vendor's alone for the main feed.
 */
async function pollOf(store: Store, source: string | undefined, raws: readonly RawIncident[], now: number) {
  const observed = raws.map((raw) => {
    const incident = one(raw);
    return source === undefined ? incident : { ...incident, id: `${source}:${incident.id}` };
  });
  const ids = observed.map((i) => i.id);
  const plan = planPoll({ observed, archived: await store.loadIncidents(ids), now, backfill: false });
  const deliveries = planDeliveries(plan.events, await store.activeSubscriptions());
  return {
    run: pollRun(now),
    plan: { writes: plan.writes, events: plan.events },
    deliveries,
    seenIds: ids,
    seenBefore: now,
    rejected: [],
    markSeeded: source === undefined,
    ...(source === undefined ? {} : { recordRun: false, source }),
  };
}

/** Three incidents of one vendor, then the first resolved with a note and the second renamed: versions, notes, services, events. */
const story = (n: number): RawIncident[][] => {
  const base = (k: number) =>
    rawIncident({ id: n * 10 + k, title: `Database errors ${n}.${k}`, services: [`API ${n}`, `Web ${k}`], date_created: `2026-10-0${k}T05:00:00Z` });
  const first = [base(1), base(2), base(3)];
  const second = [
    {
      ...first[0]!,
      status: 'resolved',
      date_updated: '2026-10-05T06:00:00Z',
      notes: [...first[0]!.notes, { body: '<p>Fixed.</p>', date_created: '2026-10-05T06:00:00Z' }],
    },
    { ...first[1]!, title: `Database errors ${n}.2, renamed`, date_updated: '2026-10-05T06:00:00Z' },
    first[2]!,
  ];
  return [first, second];
};

/** Everything a reader can learn of one source's part of the archive through the ports. */
async function visibleOf(store: Store, source: string) {
  const listed = await store.listIncidents({ source }, null, 100);
  const ids = listed.map((i) => i.id);
  return {
    listed,
    incidents: await Promise.all(ids.map((id) => store.getIncident(id))),
    versions: await Promise.all(ids.map((id) => store.listVersions(id, 100))),
    events: await store.listEvents({ source, includeBackfill: true }, 0, 1000),
    found: await store.listIncidents({ source, q: 'database' }, null, 100),
    ongoing: await store.ongoingIncidents(source),
    components: await store.componentStates(source),
    blindSpells: await store.blindSpells(source, 0),
    source: await store.getSource(source),
  };
}

/** Every delivery with its attempts, by the incident its first event names. */
async function deliveriesWithAttempts(store: Store) {
  const deliveries = await store.listDeliveries({}, null, 1000);
  return Promise.all(deliveries.map((d) => store.getDelivery(d.id)));
}

export function sourcesContract(target: StoreTarget): void {
  describe(`sources (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('lists sources oldest first from any store, never polled yet, and finds one by id', async () => {
      const other = opened.openAnother();
      expect(await store.addSource(source(2), 10)).toEqual({ added: true });
      expect(await other.addSource(source(1), 10)).toEqual({ added: true });
      expect(await other.listSources()).toEqual([
        { ...source(1), poll: NEVER_POLLED },
        { ...source(2), poll: NEVER_POLLED },
      ]);
      expect(await store.getSource('src_1')).toEqual({ ...source(1), poll: NEVER_POLLED });
      expect(await store.getSource('src_9')).toBeNull();
    });

    it('refuses a second source at the same address, and says so', async () => {
      await store.addSource(source(1, 'https://status.example.com'), 10);
      expect(await store.addSource(source(2, 'https://status.example.com'), 10)).toEqual({ added: false, reason: 'duplicate_url' });
      expect(await store.listSources()).toHaveLength(1);
    });

    it('never holds more than the cap, even when many are added at once from three stores', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.addSource(source(i), 5)));
      expect(outcomes.filter((o) => o.added)).toHaveLength(5);
      expect(outcomes.filter((o) => !o.added && o.reason === 'full')).toHaveLength(7);
      expect(await store.listSources()).toHaveLength(5);
      // Removing one makes room for exactly one.
      const [first] = await store.listSources();
      expect(await store.removeSource(first!.id)).toBe(true);
      expect(await store.addSource(source(100), 5)).toEqual({ added: true });
      expect((await store.addSource(source(101), 5)).added).toBe(false);
    });

    it('keeps what a poll came to, and a removed source takes its components along', async () => {
      await store.addSource(source(1), 10);
      const state = {
        validators: { '/api/v2/summary.json': { etag: 'W/"abc"', lastModified: 'Fri, 27 Nov 2026 09:00:00 GMT' } },
        lastSuccessAt: T0 + 60_000,
        lastFailureAt: T0 + 120_000,
        lastError: 'GET https://status1.example.com/api/v2/summary.json: HTTP 503',
        consecutiveFailures: 1,
        blindSince: null,
        blindToldAt: null,
      };
      await store.savePollState('src_1', state);
      expect((await opened.openAnother().getSource('src_1'))?.poll).toEqual(state);
      await store.saveComponentStates('src_1', [component('c1', 'operational')], T0);
      expect(await store.removeSource('src_1')).toBe(true);
      expect(await store.removeSource('src_1')).toBe(false);
      expect(await store.componentStates('src_1')).toEqual([]);
      // Written after the source is gone: nothing comes back, and the poll that saves its state is told.
      await store.saveComponentStates('src_1', [component('c1', 'operational')], T0);
      await expect(store.savePollState('src_1', state)).rejects.toBeInstanceOf(SourceGoneError);
      expect(await store.componentStates('src_1')).toEqual([]);
      expect(await store.getSource('src_1')).toBeNull();
    });

    it("takes the source's poll lease along when it is removed or its purge begins, and no other lease", async () => {
      for (const n of [1, 2, 3]) await store.addSource(source(n), 10);
      // A poll that died holding its source's lease (a killed invocation) leaves the row behind.
      for (const name of ['poll', sourceLeaseName('src_1'), sourceLeaseName('src_2'), sourceLeaseName('src_3')]) {
        expect(await store.tryAcquireLease(name, 'process-that-died', T0, MINUTE_MS)).toBe(true);
      }
      expect(await store.removeSource('src_1')).toBe(true);
      expect(await store.beginSourcePurge('src_2', T0)).toBe(true);
      const other = opened.openAnother();
      expect(await other.leaseHolder(sourceLeaseName('src_1'))).toBeNull();
      expect(await other.leaseHolder(sourceLeaseName('src_2'))).toBeNull();
      expect(await other.leaseHolder(sourceLeaseName('src_3'))).toBe('process-that-died');
      expect(await other.leaseHolder('poll')).toBe('process-that-died');
      // A poll that took the lease again while the purge goes on: the purge's steps take it too.
      expect(await store.tryAcquireLease(sourceLeaseName('src_2'), 'late-poll', T0 + MINUTE_MS, MINUTE_MS)).toBe(true);
      while (!(await store.purgeSourceStep('src_2', 500, T0)).done);
      expect(await other.leaseHolder(sourceLeaseName('src_2'))).toBeNull();
      expect(await other.leaseHolder(sourceLeaseName('src_3'))).toBe('process-that-died');
    });

    it("opens a source's poll with its lease and its row in one step, one poller at a time, and never for a source not watched", async () => {
      await store.addSource(source(1), 10);
      await store.addSource(source(2), 10);
      const watched = { ...source(1), poll: NEVER_POLLED };
      const claim = (holder: string, now = T0) => ({ holder, now, ttlMs: MINUTE_MS });
      const other = opened.openAnother();

      // Two pollers at once from two stores: one takes it; both read the row.
      const both = await Promise.all([store.openSourcePoll('src_1', claim('a')), other.openSourcePoll('src_1', claim('b'))]);
      expect(both.map((o) => o.acquired).sort()).toEqual([false, true]);
      expect(both.map((o) => o.source)).toEqual([watched, watched]);
      const winner = both[0]!.acquired ? 'a' : 'b';
      expect(await other.leaseHolder(sourceLeaseName('src_1'))).toBe(winner);
      // Its own holder again is a renewal; anyone once it expired.
      expect((await store.openSourcePoll('src_1', claim(winner))).acquired).toBe(true);
      expect((await store.openSourcePoll('src_1', claim('c', T0 + MINUTE_MS))).acquired).toBe(true);

      // Removed, or purging: no lease taken, and no lease row left for it.
      expect(await store.removeSource('src_1')).toBe(true);
      expect(await store.beginSourcePurge('src_2', T0)).toBe(true);
      for (const id of ['src_1', 'src_2', 'src_9']) {
        expect(await store.openSourcePoll(id, claim('d', T0 + 2 * MINUTE_MS))).toEqual({ acquired: false, source: null });
        expect(await other.leaseHolder(sourceLeaseName(id))).toBeNull();
      }
    });

    it("gives the source's poll lease back with its state, in one step, and also when the source went since", async () => {
      await store.addSource(source(1), 10);
      await store.addSource(source(2), 10);
      const read = { ...NEVER_POLLED, lastSuccessAt: T0 + MINUTE_MS };
      expect((await store.openSourcePoll('src_1', { holder: 'a', now: T0, ttlMs: MINUTE_MS })).acquired).toBe(true);
      // Another holder's lease is not given back by this poll's save.
      expect(await store.tryAcquireLease(sourceLeaseName('src_2'), 'b', T0, MINUTE_MS)).toBe(true);
      await store.savePollState('src_2', read, undefined, 'a');
      expect(await store.leaseHolder(sourceLeaseName('src_2'))).toBe('b');

      await store.savePollState('src_1', read, { since: T0 - 3 * 60 * MINUTE_MS, until: T0 + MINUTE_MS }, 'a');
      const other = opened.openAnother();
      expect(await other.leaseHolder(sourceLeaseName('src_1'))).toBeNull();
      expect((await other.getSource('src_1'))?.poll).toEqual(read);
      expect(await other.blindSpells('src_1', 0)).toEqual([{ since: T0 - 3 * 60 * MINUTE_MS, until: T0 + MINUTE_MS }]);

      // Removed while a poll held its lease (a lease retaken after the removal): the save says so and gives it back.
      expect((await store.openSourcePoll('src_1', { holder: 'a', now: T0 + MINUTE_MS, ttlMs: MINUTE_MS })).acquired).toBe(true);
      expect(await store.removeSource('src_1')).toBe(true);
      expect(await store.tryAcquireLease(sourceLeaseName('src_1'), 'a', T0 + MINUTE_MS, MINUTE_MS)).toBe(true);
      await expect(store.savePollState('src_1', read, undefined, 'a')).rejects.toBeInstanceOf(SourceGoneError);
      expect(await other.leaseHolder(sourceLeaseName('src_1'))).toBeNull();
    });

    it('keeps each component with the time its state last changed, and drops one the page no longer shows', async () => {
      await store.addSource(source(1), 10);
      await store.addSource(source(2), 10);
      await store.saveComponentStates('src_1', [component('c1', 'operational'), component('c2', 'operational'), component('c3', 'operational')], T0);
      await store.saveComponentStates('src_2', [component('c1', 'major_outage')], T0);
      // A minute later: c2 degrades, c1 is renamed but unchanged, c3 is gone from the page.
      await store.saveComponentStates(
        'src_1',
        [
          component('c1', 'operational', { name: 'API' }),
          component('c2', 'degraded_performance', { groupId: 'g1' }),
          component('g1', 'operational', { isGroup: true, position: 9 }),
        ],
        T0 + 60_000,
      );
      expect(await store.componentStates('src_1')).toEqual([
        { ...component('c1', 'operational', { name: 'API' }), updatedAt: T0 },
        { ...component('c2', 'degraded_performance', { groupId: 'g1' }), updatedAt: T0 + 60_000 },
        { ...component('g1', 'operational', { isGroup: true, position: 9 }), updatedAt: T0 + 60_000 },
      ]);
      // Another source's component of the same id is its own.
      expect(await store.componentStates('src_2')).toEqual([{ ...component('c1', 'major_outage'), updatedAt: T0 }]);
      // A word the vendor uses that we do not know is kept as theirs, ours unknown.
      await store.saveComponentStates('src_2', [component('c1', 'unknown', { vendorStatus: 'degraded' })], T0 + 120_000);
      expect(await store.componentStates('src_2')).toEqual([{ ...component('c1', 'unknown', { vendorStatus: 'degraded' }), updatedAt: T0 + 120_000 }]);
      // Two words we do not know are two states: the page's own word decides when a state began.
      await store.saveComponentStates('src_2', [component('c1', 'unknown', { vendorStatus: 'impaired' })], T0 + 180_000);
      expect(await store.componentStates('src_2')).toEqual([{ ...component('c1', 'unknown', { vendorStatus: 'impaired' }), updatedAt: T0 + 180_000 }]);
    });

    it("reads every watched source's components in one call, each source's in its own order, none of a removed or purging one", async () => {
      for (const n of [1, 2, 3, 4, 5]) await store.addSource(source(n), 10);
      await store.saveComponentStates('src_2', [component('c2', 'major_outage'), component('c1', 'operational', { name: 'Zeta' })], T0);
      await store.saveComponentStates('src_1', [component('c1', 'degraded_performance')], T0 + MINUTE_MS);
      await store.saveComponentStates('src_4', [component('c1', 'operational')], T0);
      await store.saveComponentStates('src_5', [component('c1', 'operational')], T0);
      await store.removeSource('src_4');
      await store.beginSourcePurge('src_5', T0);
      // src_3 was never read: it has no entry, as componentStates('src_3') is empty.
      const all = await opened.openAnother().allComponentStates();
      expect([...all.keys()].sort()).toEqual(['src_1', 'src_2']);
      expect(all.get('src_1')).toEqual(await store.componentStates('src_1'));
      expect(all.get('src_2')).toEqual([
        { ...component('c1', 'operational', { name: 'Zeta' }), updatedAt: T0 },
        { ...component('c2', 'major_outage'), updatedAt: T0 },
      ]);
    });

    describe('blind spells', () => {
      const HOUR_MS = 3_600_000;
      const readAt = (at: number) => ({ ...NEVER_POLLED, lastSuccessAt: at });

      it('keeps the spell a good read ended with its poll state, in one step, from any store; reads those ended since a time, oldest first', async () => {
        await store.addSource(source(1), 10);
        await store.addSource(source(2), 10);
        // A spell of src_1 that ended before the asked time, and two after; one of src_2.
        await store.savePollState('src_1', readAt(T0 + 2 * HOUR_MS), { since: T0, until: T0 + 2 * HOUR_MS });
        await store.savePollState('src_1', readAt(T0 + 5 * HOUR_MS), { since: T0 + 4 * HOUR_MS, until: T0 + 5 * HOUR_MS });
        await store.savePollState('src_2', readAt(T0 + 6 * HOUR_MS), { since: T0 + HOUR_MS, until: T0 + 6 * HOUR_MS });
        // The same spell saved again (a save retried) is one spell.
        await store.savePollState('src_1', readAt(T0 + 9 * HOUR_MS), { since: T0 + 8 * HOUR_MS, until: T0 + 9 * HOUR_MS });
        await store.savePollState('src_1', readAt(T0 + 9 * HOUR_MS), { since: T0 + 8 * HOUR_MS, until: T0 + 9 * HOUR_MS });
        const other = opened.openAnother();
        expect((await other.getSource('src_1'))?.poll).toEqual(readAt(T0 + 9 * HOUR_MS));
        expect(await other.blindSpells('src_1', T0 + 3 * HOUR_MS)).toEqual([
          { since: T0 + 4 * HOUR_MS, until: T0 + 5 * HOUR_MS },
          { since: T0 + 8 * HOUR_MS, until: T0 + 9 * HOUR_MS },
        ]);
        // Ended exactly at the asked time: it reaches it, so it is read.
        expect(await other.blindSpells('src_1', T0 + 2 * HOUR_MS)).toHaveLength(3);
        expect(await other.blindSpells('src_2', 0)).toEqual([{ since: T0 + HOUR_MS, until: T0 + 6 * HOUR_MS }]);
        expect(await other.blindSpells('src_9', 0)).toEqual([]);
        // A removed source takes its spells along; saved after it is gone, none is kept.
        expect(await store.removeSource('src_1')).toBe(true);
        expect(await store.blindSpells('src_1', 0)).toEqual([]);
        await expect(store.savePollState('src_1', readAt(T0 + 12 * HOUR_MS), { since: T0 + 10 * HOUR_MS, until: T0 + 12 * HOUR_MS })).rejects.toBeInstanceOf(
          SourceGoneError,
        );
        expect(await store.blindSpells('src_1', 0)).toEqual([]);
        expect(await store.blindSpells('src_2', 0)).toHaveLength(1);
      });

      it(`keeps at most ${BLIND_SPELLS_PER_SOURCE} spells a source: past that, the two oldest merge into one, the read time between them counted in`, async () => {
        await store.addSource(source(1), 10);
        await store.addSource(source(2), 10);
        await store.savePollState('src_2', readAt(T0 + HOUR_MS), { since: T0, until: T0 + HOUR_MS });
        // Spells of ten minutes, one every hour: three more than the cap.
        const spell = (i: number) => ({ since: T0 + i * HOUR_MS, until: T0 + i * HOUR_MS + 10 * MINUTE_MS });
        for (let i = 0; i < BLIND_SPELLS_PER_SOURCE + 3; i++) await store.savePollState('src_1', readAt(spell(i).until), spell(i));
        const kept = await store.blindSpells('src_1', 0);
        expect(kept).toHaveLength(BLIND_SPELLS_PER_SOURCE);
        // The first four spells are one now, from the first's start to the fourth's end; the rest as they were.
        expect(kept[0]).toEqual({ since: spell(0).since, until: spell(3).until });
        expect(kept.slice(1)).toEqual(Array.from({ length: BLIND_SPELLS_PER_SOURCE - 1 }, (_, i) => spell(i + 4)));
        // Another source's spells are its own.
        expect(await store.blindSpells('src_2', 0)).toEqual([{ since: T0, until: T0 + HOUR_MS }]);
      });
    });

    describe('purging a source', () => {
      const T1 = T0 + 60_000;
      const T2 = T0 + 120_000;
      /** When the purges below step: every claim made above has ended. */
      const LATER = T0 + 3_600_000;
      const HOLDER = 'deliverer-1';

      /** src_a and src_ab (one id the start of the other's) and the main feed, each with incidents, events, deliveries. */
      async function threeArchives() {
        await store.addSource(source(1, 'https://a.example.com'), 10);
        await store.addSource({ ...source(2, 'https://ab.example.com'), id: 'src_ab' }, 10);
        await store.addSource({ ...source(3, 'https://a2.example.com'), id: 'src_a' }, 10);
        // Subscribed to every source: without filters.sources a subscription hears the main feed alone.
        const everySource = { sources: ['main', 'src_a', 'src_ab'] };
        await subscribe(store, 'sub_hook', T0, everySource);
        await subscribe(store, 'sub_mail', T0, everySource, 'email');
        const feeds: [string | undefined, number][] = [
          [undefined, 1],
          ['src_a', 2],
          ['src_ab', 3],
        ];
        for (const [source_, n] of feeds) await store.applyPoll(await pollOf(store, source_, story(n)[0]!, T1));
        // The first poll's deliveries are sent (a record of what went out); the second's wait.
        const claimed = await store.claimDueDeliveries(HOLDER, T1, 60_000, 1000);
        await store.recordAttempts(
          HOLDER,
          claimed.map((c) => attemptOf(c.delivery.id, T1 + 1, { kind: 'done' })),
        );
        for (const [source_, n] of feeds) await store.applyPoll(await pollOf(store, source_, story(n)[1]!, T2));
        // One pending delivery of each has failed once: its attempt is on record.
        const retried = await store.claimDueDeliveries(HOLDER, T2, 60_000, 1000);
        const firstOf = (prefix: string) => retried.find((c) => c.delivery.key.startsWith(prefix))!;
        await store.recordAttempts(
          HOLDER,
          [firstOf('src_a:'), firstOf('src_ab:'), retried.find((c) => !c.delivery.key.includes(':'))!].map((c) =>
            attemptOf(c.delivery.id, T2 + 1, { kind: 'retry', at: T2 + 60_000, error: 'HTTP 503' }),
          ),
        );
        await store.releaseClaims(HOLDER);
        for (const id of ['src_a', 'src_ab']) {
          await store.saveComponentStates(id, [component('c1', 'operational'), component('c2', 'major_outage')], T1);
          // Each went unread for a while before its last good read.
          await store.savePollState(id, { ...NEVER_POLLED, lastSuccessAt: T2 }, { since: T0, until: T2 });
        }
      }

      it("deletes the source's whole archive and its unsent deliveries, and not one row of another source's or the main feed's", async () => {
        await threeArchives();
        const before = { main: await visibleOf(store, 'main'), other: await visibleOf(store, 'src_ab') };
        const purged = await visibleOf(store, 'src_a');
        expect(purged.listed).toHaveLength(3);
        expect(purged.blindSpells).toEqual([{ since: T0, until: T2 }]);
        expect(purged.events.length).toBeGreaterThan(3);
        const deliveriesBefore = await deliveriesWithAttempts(store);
        const isPurged = (key: string) => key.startsWith('src_a:');
        expect(deliveriesBefore.filter((d) => isPurged(d!.delivery.key) && d!.delivery.state === 'pending').length).toBeGreaterThan(0);
        const mainGeneration = (await store.lastDiff()).generation;
        const generation = await store.archiveGeneration();

        expect(await store.beginSourcePurge('src_a', T2 + 10)).toBe(true);
        let step = await store.purgeSourceStep('src_a', 1000, LATER);
        expect(step.done).toBe(true);
        expect(step.removedRows).toBeGreaterThan(20);

        // Another store (process, isolate) sees the same.
        const other = opened.openAnother();
        expect(await visibleOf(other, 'main')).toEqual(before.main);
        expect(await visibleOf(other, 'src_ab')).toEqual(before.other);
        expect(await visibleOf(other, 'src_a')).toEqual({
          listed: [],
          incidents: [],
          versions: [],
          events: [],
          found: [],
          ongoing: [],
          components: [],
          blindSpells: [],
          source: null,
        });
        // The sent deliveries of its events stay, with their attempts; those not yet sent are gone.
        const deliveriesAfter = await deliveriesWithAttempts(other);
        expect(deliveriesAfter).toEqual(deliveriesBefore.filter((d) => !isPurged(d!.delivery.key) || d!.delivery.state !== 'pending'));
        expect(deliveriesAfter.filter((d) => isPurged(d!.delivery.key)).length).toBeGreaterThan(0);
        // Nothing of it is claimed again, and every face's cache key moved; the main feed's did not.
        expect((await other.claimDueDeliveries('deliverer-2', T2 + 120_000, 60_000, 1000)).every((c) => !isPurged(c.delivery.key))).toBe(true);
        expect(await other.archiveGeneration()).not.toBe(generation);
        expect((await other.lastDiff()).generation).toBe(mainGeneration);
        expect((await other.listSources()).map((s) => s.id)).toEqual(['src_1', 'src_ab']);
        expect(await other.purgingSources()).toEqual([]);
        // Done: a further step finds nothing, and the address may be added again.
        step = await store.purgeSourceStep('src_a', 1000, LATER);
        expect(step).toEqual({ removedRows: 0, done: true });
        expect(await store.addSource({ ...source(4, 'https://a2.example.com'), id: 'src_a' }, 10)).toEqual({ added: true });
      });

      it('goes in steps of at most `limit` rows of each kind, finds what is left, and deletes the row last', async () => {
        await threeArchives();
        const before = { main: await visibleOf(store, 'main'), other: await visibleOf(store, 'src_ab') };
        expect(await store.sourceArchiveLeft('src_a', 100)).toEqual({ incidents: 3, events: (await visibleOf(store, 'src_a')).events.length });
        expect(await store.sourceArchiveLeft('src_a', 2)).toEqual({ incidents: 2, events: 2 });
        await store.beginSourcePurge('src_a', T2 + 10);
        expect(await store.purgingSources()).toEqual(['src_a']);
        const first = await store.purgeSourceStep('src_a', 1, LATER);
        expect(first.done).toBe(false);
        // One incident (with its services, at most two), one note, one version, one event, one delivery and its attempt at most.
        expect(first.removedRows).toBeLessThanOrEqual(8);
        expect((await store.sourceArchiveLeft('src_a', 100)).incidents).toBe(2);
        let steps = 1;
        while (!(await store.purgeSourceStep('src_a', 1, LATER)).done) steps++;
        expect(steps).toBeGreaterThan(3);
        expect(await store.sourceArchiveLeft('src_a', 100)).toEqual({ incidents: 0, events: 0 });
        expect(await store.purgingSources()).toEqual([]);
        expect(await visibleOf(store, 'main')).toEqual(before.main);
        expect(await visibleOf(store, 'src_ab')).toEqual(before.other);
      });

      it('leaves a delivery a deliverer holds a live claim on until its attempt is recorded, then keeps that record; an expired claim goes', async () => {
        await store.addSource(source(1), 10);
        // Two subscriptions: one's later deliveries wait while its first is claimed.
        await subscribe(store, 'sub_hook', T0, { sources: ['src_1'] });
        await subscribe(store, 'sub_other', T0, { sources: ['src_1'] });
        await store.applyPoll(await pollOf(store, 'src_1', story(1)[0]!, T1));
        const [live] = await store.claimDueDeliveries(HOLDER, T1, 60_000, 1);
        const [lapsed] = await store.claimDueDeliveries('deliverer-that-died', T1, 1000, 1);
        const [waiting] = (await store.listDeliveries({ state: 'pending' }, null, 10)).filter(
          (d) => d.id !== live!.delivery.id && d.id !== lapsed!.delivery.id,
        );
        expect([live, lapsed, waiting].every(Boolean)).toBe(true);
        // The purge begins while the live claim's send is under way (its lease runs to T1 + 60 s).
        const at = T1 + 5000;
        expect(await store.beginSourcePurge('src_1', at)).toBe(true);
        for (let step = 0; step < 3; step++) expect((await store.purgeSourceStep('src_1', 500, at)).done).toBe(false);
        const other = opened.openAnother();
        expect(await other.getDelivery(lapsed!.delivery.id)).toBeNull();
        expect(await other.getDelivery(waiting!.id)).toBeNull();
        expect((await other.getDelivery(live!.delivery.id))?.delivery.state).toBe('pending');
        expect(await other.sourceArchiveLeft('src_1', 100)).toEqual({ incidents: 0, events: 0 });
        // The send went out: its record lands, and the purge keeps it as it keeps every sent delivery's.
        expect(await store.recordAttempts(HOLDER, [attemptOf(live!.delivery.id, at + 1000, { kind: 'done' })])).toEqual([true]);
        expect(await store.purgeSourceStep('src_1', 500, at + 2000)).toEqual({ removedRows: 1, done: true });
        const kept = await other.getDelivery(live!.delivery.id);
        expect([kept?.delivery.state, kept?.attempts.map((a) => a.attemptedAt)]).toEqual(['done', [at + 1000]]);
        expect(await other.getSource('src_1')).toBeNull();
      });

      it('while it purges, the source is neither listed nor found, takes no room, refuses its address, and no poll writes to it', async () => {
        await store.addSource(source(1), 2);
        await store.addSource(source(2), 2);
        await store.applyPoll(await pollOf(store, 'src_1', story(1)[0]!, T1));
        const late = await pollOf(store, 'src_1', story(1)[1]!, T2);
        const generation = await store.archiveGeneration();
        expect(await store.beginSourcePurge('src_1', T2)).toBe(true);
        // Asked again, it goes on; an unknown source is not there to purge; a watched one is never touched.
        expect(await store.beginSourcePurge('src_1', T2 + 1)).toBe(true);
        expect(await store.beginSourcePurge('src_9', T2)).toBe(false);
        expect(await store.purgeSourceStep('src_2', 1000, LATER)).toEqual({ removedRows: 0, done: true });
        expect(await store.purgeSourceStep('main', 1000, LATER)).toEqual({ removedRows: 0, done: true });

        expect((await store.listSources()).map((s) => s.id)).toEqual(['src_2']);
        expect(await store.getSource('src_1')).toBeNull();
        expect(await store.removeSource('src_1')).toBe(false);
        expect(await store.addSource(source(3, 'https://status1.example.com'), 2)).toEqual({ added: false, reason: 'purging' });
        expect(await store.addSource(source(4), 2)).toEqual({ added: true });
        // A poll under way when the purge began writes nothing at all.
        await expect(store.applyPoll(late)).rejects.toBeInstanceOf(SourceGoneError);
        expect(await store.archiveGeneration()).toBe(generation);
        await store.saveComponentStates('src_1', [component('c1', 'operational')], T2);
        expect(await store.componentStates('src_1')).toEqual([]);
        await expect(store.savePollState('src_1', { ...NEVER_POLLED, lastSuccessAt: T2 }, { since: T1, until: T2 })).rejects.toBeInstanceOf(SourceGoneError);
        await expect(store.savePollState('src_1', { ...NEVER_POLLED, lastFailureAt: T2 })).rejects.toBeInstanceOf(SourceGoneError);
        expect(await store.blindSpells('src_1', 0)).toEqual([]);
        // Nor once it is gone.
        expect((await store.purgeSourceStep('src_1', 1000, LATER)).done).toBe(true);
        await expect(store.applyPoll(late)).rejects.toBeInstanceOf(SourceGoneError);
        expect(await store.listIncidents({ source: 'src_1' }, null, 10)).toEqual([]);
      });
    });
  });
}
