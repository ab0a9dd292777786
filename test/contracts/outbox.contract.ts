/**
 * The outbox contract: deliveries get in the way the poller puts them there (a planned poll with
 * its fanout), and deliverers in several processes or isolates claim, record and replay them.
 * What must hold whatever runs it: a row is never held by two deliverers, a deliverer whose claim
 * was taken over changes nothing, and a pause is seen by every store at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryOutcome, Store } from '../../src/core/ports.ts';
import { attemptOf, pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 15, 0, 0);
const LEASE_MS = 60_000;
const DONE = { kind: 'done' } as const;

/** The n-th new incident: one incident.created event, so one delivery per webhook subscriber. */
const incident = (n: number) => rawIncident({ id: 5000 + n, title: `Incident ${n}: messages fail to send` });

export function outboxContract(target: StoreTarget): void {
  describe(`outbox (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    const subscribe = (id: string, overrides = {}) => store.createSubscription(storedSubscription(id, overrides, T0 - 1000));
    const idsOf = (list: readonly { delivery: { id: number } }[]) => list.map((c) => c.delivery.id).sort((a, b) => a - b);

    it('holds one pending delivery per webhook event and per email incident, due when the poll ran', async () => {
      await subscribe('sub_hook');
      await subscribe('sub_mail', { channel: 'email', target: 'ops@example.test' });
      await subscribe('sub_files', { filters: { services: ['Files'] } });
      await subscribe('sub_paused', { status: 'paused', pausedReason: 'gone' });
      const { events, deliveries } = await pollNews(store, [incident(1), incident(2)], T0);
      expect(events).toHaveLength(2);
      expect(deliveries).toHaveLength(4);

      const listed = await opened.openAnother().listDeliveries({}, null, 10);
      expect(listed.map((d) => [d.subscriptionId, d.channel, d.eventIds]).sort()).toEqual(
        [
          ['sub_hook', 'webhook', [events[0]!.id]],
          ['sub_hook', 'webhook', [events[1]!.id]],
          ['sub_mail', 'email', [events[0]!.id]],
          ['sub_mail', 'email', [events[1]!.id]],
        ].sort(),
      );
      expect(new Set(listed.map((d) => d.key))).toEqual(new Set(deliveries.map((d) => d.key)));
      for (const delivery of listed) {
        expect(delivery).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: T0, createdAt: T0, finishedAt: null, lastError: null });
      }
      expect(await store.nextDueAt()).toBe(T0);
      expect(await store.deliveryCounts(T0)).toEqual({ pending: 4, done: 0, dead: 0, due: 4, retrying: 0, oldestPendingAt: T0 });
      expect(await store.deliveryCounts(T0 - 1)).toMatchObject({ pending: 4, due: 0 });
    });

    it('reads the events and subscriptions a page of deliveries names, by id, leaving out what is gone', async () => {
      await subscribe('sub_hook');
      await subscribe('sub_gone');
      const { events } = await pollNews(store, [incident(1), incident(2)], T0);
      await store.deleteSubscription('sub_gone');
      const other = opened.openAnother();
      const read = await other.eventsByIds([events[1]!.id, 'evt_missing', events[0]!.id]);
      expect(read.map((e) => e.id)).toEqual([events[0]!.id, events[1]!.id]);
      expect(read[0]).toMatchObject({
        type: 'incident.created',
        incidentId: events[0]!.incidentId,
        data: { incident: { title: 'Incident 1: messages fail to send' } },
      });
      expect((await other.subscriptionsByIds(['sub_gone', 'sub_hook'])).map((s) => s.id)).toEqual(['sub_hook']);
      expect(await other.eventsByIds([])).toEqual([]);
      expect(await other.subscriptionsByIds([])).toEqual([]);
      // Past D1's 100 bound parameters: the ids go as one JSON value.
      const many = [...Array.from({ length: 150 }, (_, i) => `evt_${i}`), events[0]!.id];
      expect((await other.eventsByIds(many)).map((e) => e.id)).toEqual([events[0]!.id]);
    });

    it('writes no delivery for a subscription paused or deleted between planning and the write', async () => {
      await subscribe('sub_a');
      await subscribe('sub_b');
      await subscribe('sub_c');
      const planning: Store = {
        ...store,
        // The poller read the active list; an admin elsewhere pauses sub_b and deletes sub_c
        // before the piece is written.
        async activeSubscriptions() {
          const active = await store.activeSubscriptions();
          const admin = opened.openAnother();
          await admin.updateSubscription('sub_b', { status: 'paused', pausedReason: 'paused by an admin' }, T0);
          await admin.deleteSubscription('sub_c');
          return active;
        },
      };
      const { deliveries } = await pollNews(planning, [incident(1)], T0);
      expect(deliveries.map((d) => d.subscriptionId)).toEqual(['sub_a', 'sub_b', 'sub_c']);
      expect((await store.listDeliveries({}, null, 10)).map((d) => d.subscriptionId)).toEqual(['sub_a']);
    });

    it('gives each delivery to one of many deliverers claiming at once, and each exactly once', async () => {
      // Nine subscriptions and one incident: no delivery waits behind another of its subscription.
      for (let n = 1; n <= 9; n++) await subscribe(`sub_${n}`);
      await pollNews(store, [incident(1)], T0);
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 3]!.claimDueDeliveries(`deliverer-${i}`, T0, LEASE_MS, 2)));
      const all = claims.flatMap((claimed) => idsOf(claimed));
      expect(all).toHaveLength(9);
      expect(new Set(all).size).toBe(9);
      // Each holder got what it was told, and nobody can take the rows while the claims live.
      expect((await store.claimHolders()).sort()).toEqual(claims.flatMap((c, i) => (c.length > 0 ? [`deliverer-${i}`] : [])).sort());
      expect(await stores[1]!.claimDueDeliveries('late', T0 + LEASE_MS - 1, LEASE_MS, 100)).toEqual([]);
    });

    it('claims what is due, oldest first, up to the limit, with its subscription and events', async () => {
      await subscribe('sub_hook');
      const first = await pollNews(store, [incident(1)], T0);
      const second = await pollNews(store, [incident(2)], T0 + 1000);
      expect(await store.claimDueDeliveries('a', T0 - 1, LEASE_MS, 10)).toEqual([]);
      const [claimed, ...more] = await store.claimDueDeliveries('a', T0 + 1000, LEASE_MS, 1);
      expect(more).toEqual([]);
      // Only what sending and recording the attempt use; the rest stays in the row.
      expect(claimed?.delivery).toEqual({ id: claimed!.delivery.id, key: first.deliveries[0]!.key, channel: 'webhook', attempts: 0, createdAt: T0 });
      expect((await store.getDelivery(claimed!.delivery.id))?.delivery).toMatchObject({ state: 'pending', attempts: 0 });
      expect(claimed?.subscription).toEqual(await store.getSubscription('sub_hook'));
      expect(claimed?.events).toEqual(first.events);
      // Its claim holds it past the other's due time; the second waits for the first (in order),
      // and once the first is done the next claim takes it.
      expect(await store.nextDueAt()).toBe(T0 + 1000);
      expect(await store.claimDueDeliveries('b', T0 + 1000, LEASE_MS, 10)).toEqual([]);
      expect(await store.recordAttempts('a', [attemptOf(claimed!.delivery.id, T0 + 1001, DONE)])).toEqual([true]);
      expect((await store.claimDueDeliveries('b', T0 + 1002, LEASE_MS, 10)).map((c) => c.events)).toEqual([second.events]);
      expect(await store.nextDueAt()).toBe(T0 + 1002 + LEASE_MS);
    });

    it('keeps one subscription’s deliveries in order across deliverers: a later one waits while an earlier one is claimed', async () => {
      await subscribe('sub_a');
      await subscribe('sub_b');
      await pollNews(store, [incident(1)], T0);
      await pollNews(store, [incident(2)], T0 + 1);
      await pollNews(store, [incident(3)], T0 + 2);
      const other = opened.openAnother();
      const subsOf = (list: readonly { subscription: { id: string } }[]) => list.map((c) => c.subscription.id);
      // a takes the oldest of each; b, at once after, finds every later one waiting behind them.
      const first = await store.claimDueDeliveries('a', T0 + 10, LEASE_MS, 2);
      expect(subsOf(first).sort()).toEqual(['sub_a', 'sub_b']);
      expect(await other.claimDueDeliveries('b', T0 + 10, LEASE_MS, 10)).toEqual([]);
      // sub_a's first is done, sub_b's is retried later: b may take sub_a's next ones, in one claim,
      // and sub_b's, which no longer wait for a delivery in flight.
      const retry = { kind: 'retry', at: T0 + 60_000, error: 'HTTP 503' } as const;
      const [aFirst, bFirst] = [first.find((c) => c.subscription.id === 'sub_a')!, first.find((c) => c.subscription.id === 'sub_b')!];
      expect(await store.recordAttempts('a', [attemptOf(aFirst.delivery.id, T0 + 11, DONE), attemptOf(bFirst.delivery.id, T0 + 11, retry)])).toEqual([
        true,
        true,
      ]);
      const next = await other.claimDueDeliveries('b', T0 + 12, LEASE_MS, 10);
      expect(next.map((c) => [c.subscription.id, c.events[0]!.incidentId])).toEqual([
        ['sub_a', '5002'],
        ['sub_b', '5002'],
        ['sub_a', '5003'],
        ['sub_b', '5003'],
      ]);
      // A deliverer that died frees its subscriptions when its claim ends: then everything pending
      // goes to the next claim, sub_b's retried first delivery too.
      await pollNews(store, [incident(4)], T0 + 13);
      expect(await store.claimDueDeliveries('c', T0 + 14, LEASE_MS, 10)).toEqual([]);
      const after = await store.claimDueDeliveries('c', T0 + 12 + LEASE_MS, LEASE_MS, 10);
      expect(after.map((c) => `${c.subscription.id} ${c.events[0]!.incidentId}`).sort()).toEqual([
        'sub_a 5002',
        'sub_a 5003',
        'sub_a 5004',
        'sub_b 5001',
        'sub_b 5002',
        'sub_b 5003',
        'sub_b 5004',
      ]);
    });

    it('records nothing from a deliverer whose expired claim was taken over, and all from the one that took it', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1)], T0);
      const other = opened.openAnother();
      const [mine] = await store.claimDueDeliveries('a', T0, LEASE_MS, 10);
      const id = mine!.delivery.id;
      const before = await other.getDelivery(id);
      const [taken] = await other.claimDueDeliveries('b', T0 + LEASE_MS, LEASE_MS, 10);
      expect(taken?.delivery.id).toBe(id);

      // a comes back late with a 410: neither its attempt nor the pause may land.
      const late = attemptOf(id, T0 + LEASE_MS + 5, { kind: 'dead', reason: 'gone' }, { kind: 'paused', reason: 'the receiver answered 410 Gone' });
      expect(await store.recordAttempts('a', [late])).toEqual([false]);
      expect(await other.getDelivery(id)).toEqual(before);
      expect(await other.getSubscription('sub_hook')).toMatchObject({ status: 'active', pausedReason: null, failingSince: null, lastSuccessAt: null });
      expect((await other.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_hook']);

      expect(await other.recordAttempts('b', [attemptOf(id, T0 + LEASE_MS + 10, DONE)])).toEqual([true]);
      const after = await store.getDelivery(id);
      expect(after?.delivery).toMatchObject({ state: 'done', attempts: 1, finishedAt: T0 + LEASE_MS + 30, lastError: null });
      expect(after?.attempts).toEqual([{ attemptedAt: T0 + LEASE_MS + 10, ok: true, status: 200, durationMs: 20, responseExcerpt: 'ok', error: null }]);
      expect(await store.getSubscription('sub_hook')).toMatchObject({ lastSuccessAt: T0 + LEASE_MS + 30, failingSince: null });
      // Once finished, not even its holder records on it again.
      expect(await other.recordAttempts('b', [attemptOf(id, T0 + LEASE_MS + 40, DONE)])).toEqual([false]);
      expect((await store.getDelivery(id))?.attempts).toHaveLength(1);
    });

    it('reads only the newest attempts of a delivery when asked, oldest of them first', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1)], T0);
      let id = 0;
      for (let n = 0; n < 4; n++) {
        const [claimed] = await store.claimDueDeliveries('a', T0 + n * 10_000, LEASE_MS, 1);
        id = claimed!.delivery.id;
        const at = T0 + n * 10_000 + 1;
        expect(await store.recordAttempts('a', [attemptOf(id, at, { kind: 'retry', at: T0 + (n + 1) * 10_000, error: `try ${n}` })])).toEqual([true]);
      }
      const other = opened.openAnother();
      const all = await other.getDelivery(id);
      expect(all?.attempts.map((x) => x.attemptedAt)).toEqual([T0 + 1, T0 + 10_001, T0 + 20_001, T0 + 30_001]);
      const newest = await other.getDelivery(id, 2);
      expect(newest?.attempts.map((x) => x.attemptedAt)).toEqual([T0 + 20_001, T0 + 30_001]);
      expect(newest?.delivery.attempts).toBe(4);
    });

    it('answers each attempt of one call on its own: held ones land, the others do not', async () => {
      await subscribe('sub_hook');
      await subscribe('sub_other');
      await pollNews(store, [incident(1)], T0);
      const [x] = await store.claimDueDeliveries('a', T0, LEASE_MS, 1);
      const [y] = await store.claimDueDeliveries('b', T0, LEASE_MS, 1);
      const recorded = await store.recordAttempts('a', [attemptOf(x!.delivery.id, T0 + 1, DONE), attemptOf(y!.delivery.id, T0 + 1, DONE)]);
      expect(recorded).toEqual([true, false]);
      expect((await store.getDelivery(x!.delivery.id))?.delivery.state).toBe('done');
      expect(await store.getDelivery(y!.delivery.id)).toMatchObject({ delivery: { state: 'pending', attempts: 0 }, attempts: [] });
    });

    it('records a call of many attempts as if one after another: two of one subscription, one delivery twice', async () => {
      await subscribe('sub_a');
      await subscribe('sub_b');
      await subscribe('sub_c');
      await pollNews(store, [incident(1), incident(2)], T0);
      const claimed = await store.claimDueDeliveries('a', T0, LEASE_MS, 10);
      expect(claimed).toHaveLength(6);
      const of = (subscription: string, n: number) =>
        claimed.find((c) => c.subscription.id === subscription && c.events[0]!.incidentId === String(5000 + n))!.delivery.id;
      const retry = { kind: 'retry', at: T0 + 60_000, error: 'HTTP 503' } as const;
      const gone = { kind: 'paused', reason: 'the receiver answered 410 Gone' } as const;
      const recorded = await store.recordAttempts('a', [
        // sub_a fails, then succeeds; its first delivery comes again after it was recorded.
        attemptOf(of('sub_a', 1), T0 + 10, retry),
        attemptOf(of('sub_a', 2), T0 + 20, DONE),
        // sub_b succeeds, then fails.
        attemptOf(of('sub_b', 1), T0 + 10, DONE),
        attemptOf(of('sub_b', 2), T0 + 20, retry),
        // sub_c is paused by a 410, then its next delivery fails too.
        attemptOf(of('sub_c', 1), T0 + 10, { kind: 'dead', reason: 'gone' }, gone),
        attemptOf(of('sub_c', 2), T0 + 20, { kind: 'dead', reason: 'HTTP 404' }, { kind: 'paused', reason: 'another reason' }),
        attemptOf(of('sub_a', 1), T0 + 30, DONE),
      ]);
      expect(recorded).toEqual([true, true, true, true, true, true, false]);

      const other = opened.openAnother();
      expect(await other.getSubscription('sub_a')).toMatchObject({ status: 'active', failingSince: null, lastSuccessAt: T0 + 40 });
      expect(await other.getSubscription('sub_b')).toMatchObject({ status: 'active', failingSince: T0 + 20, lastSuccessAt: T0 + 30 });
      expect(await other.getSubscription('sub_c')).toMatchObject({
        status: 'paused',
        pausedReason: 'the receiver answered 410 Gone',
        updatedAt: T0 + 30,
        failingSince: T0 + 10,
      });
      expect((await other.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_a', 'sub_b']);
      const a1 = await other.getDelivery(of('sub_a', 1));
      expect(a1?.delivery).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: T0 + 60_000, lastError: 'HTTP 503' });
      expect(a1?.attempts.map((x) => [x.attemptedAt, x.ok])).toEqual([[T0 + 10, false]]);
      expect((await other.getDelivery(of('sub_c', 2)))?.delivery).toMatchObject({ state: 'dead', attempts: 1, finishedAt: T0 + 40, lastError: 'HTTP 404' });
      expect(await other.deliveryCounts(T0 + 100)).toMatchObject({ pending: 2, done: 2, dead: 2 });
    });

    it('records a call of 40 attempts, past the 100 parameters a D1 statement binds, each with its own outcome', async () => {
      for (let n = 0; n < 40; n++) await subscribe(`sub_${String(n).padStart(2, '0')}`);
      await pollNews(store, [incident(1)], T0);
      const claimed = await store.claimDueDeliveries('a', T0, LEASE_MS, 100);
      expect(claimed).toHaveLength(40);
      // One of them was taken over by another deliverer once a's claim ran out; a renewed the others.
      const lost = claimed[17]!.delivery.id;
      const kept = claimed.map((c) => c.delivery.id).filter((id) => id !== lost);
      expect((await store.renewClaims('a', kept, T0 + LEASE_MS - 1, LEASE_MS)).sort((x, y) => x - y)).toEqual(kept.sort((x, y) => x - y));
      const other = opened.openAnother();
      expect(idsOf(await other.claimDueDeliveries('b', T0 + LEASE_MS, LEASE_MS, 100))).toEqual([lost]);

      const outcomeOf = (n: number) =>
        [
          DONE,
          { kind: 'retry', at: T0 + 60_000, error: 'HTTP 503' },
          { kind: 'dead', reason: 'HTTP 404' },
          { kind: 'held', at: T0 + 30_000, error: 'ratelimited', logged: n % 2 === 0 },
        ][n % 4] as DeliveryOutcome;
      const attempts = claimed.map((c, n) => attemptOf(c.delivery.id, T0 + n, outcomeOf(n), outcomeOf(n).kind === 'held' ? { kind: 'unchanged' } : undefined));
      const recorded = await store.recordAttempts('a', attempts);
      expect(recorded).toEqual(claimed.map((c) => c.delivery.id !== lost));

      for (const [n, c] of claimed.entries()) {
        const read = await other.getDelivery(c.delivery.id);
        const finished = T0 + n + 20;
        const expected =
          c.delivery.id === lost
            ? { state: 'pending', attempts: 0, nextAttemptAt: T0, finishedAt: null, lastError: null }
            : [
                { state: 'done', attempts: 1, nextAttemptAt: T0, finishedAt: finished, lastError: null },
                { state: 'pending', attempts: 1, nextAttemptAt: T0 + 60_000, finishedAt: null, lastError: 'HTTP 503' },
                { state: 'dead', attempts: 1, nextAttemptAt: T0, finishedAt: finished, lastError: 'HTTP 404' },
                { state: 'pending', attempts: 0, nextAttemptAt: T0 + 30_000, finishedAt: null, lastError: 'ratelimited' },
              ][n % 4];
        expect(read?.delivery, `delivery ${n}`).toMatchObject(expected!);
        const logged = c.delivery.id !== lost && (n % 4 !== 3 || n % 2 === 0);
        expect(
          read?.attempts.map((x) => x.attemptedAt),
          `attempts of delivery ${n}`,
        ).toEqual(logged ? [T0 + n] : []);
        const health = await other.getSubscription(c.subscription.id);
        const healthExpected =
          c.delivery.id === lost || n % 4 === 3
            ? { failingSince: null, lastSuccessAt: null }
            : n % 4 === 0
              ? { failingSince: null, lastSuccessAt: finished }
              : { failingSince: T0 + n, lastSuccessAt: null };
        expect(health, `subscription of delivery ${n}`).toMatchObject(healthExpected);
      }
    });

    it('keeps a retried delivery pending until its time, and a dead one finished with its reason', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1), incident(2)], T0);
      const [x, y] = await store.claimDueDeliveries('a', T0, LEASE_MS, 2);
      expect(
        await store.recordAttempts('a', [
          attemptOf(x!.delivery.id, T0 + 100, { kind: 'retry', at: T0 + 5000, error: 'HTTP 503' }),
          attemptOf(y!.delivery.id, T0 + 100, { kind: 'dead', reason: 'invalid URL' }),
        ]),
      ).toEqual([true, true]);
      expect((await store.getDelivery(x!.delivery.id))?.delivery).toMatchObject({
        state: 'pending',
        attempts: 1,
        nextAttemptAt: T0 + 5000,
        finishedAt: null,
        lastError: 'HTTP 503',
      });
      expect((await store.getDelivery(y!.delivery.id))?.delivery).toMatchObject({ state: 'dead', attempts: 1, finishedAt: T0 + 120, lastError: 'invalid URL' });
      expect(await store.claimHolders()).toEqual([]);
      expect(await store.nextDueAt()).toBe(T0 + 5000);
      // The one that failed and waits for its next try is counted as retrying.
      expect(await store.deliveryCounts(T0 + 4999)).toEqual({ pending: 1, done: 0, dead: 1, due: 0, retrying: 1, oldestPendingAt: null });
      expect(await store.claimDueDeliveries('b', T0 + 4999, LEASE_MS, 10)).toEqual([]);
      expect(idsOf(await store.claimDueDeliveries('b', T0 + 5000, LEASE_MS, 10))).toEqual([x!.delivery.id]);
    });

    it('holds a delivery without counting an attempt or touching its subscription’s health, logging it only when a call was made', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1), incident(2)], T0);
      const [x, y] = await store.claimDueDeliveries('a', T0, LEASE_MS, 2);
      const unchanged = { kind: 'unchanged' } as const;
      expect(
        await store.recordAttempts('a', [
          attemptOf(x!.delivery.id, T0 + 100, { kind: 'held', at: T0 + 30_000, error: 'ratelimited', logged: true }, unchanged),
          attemptOf(y!.delivery.id, T0 + 100, { kind: 'held', at: T0 + 60_000, error: 'installation broken', logged: false }, unchanged),
        ]),
      ).toEqual([true, true]);
      const held = await store.getDelivery(x!.delivery.id);
      expect(held?.delivery).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: T0 + 30_000, lastError: 'ratelimited' });
      expect(held?.attempts).toHaveLength(1);
      expect(await store.getDelivery(y!.delivery.id)).toMatchObject({ delivery: { state: 'pending', attempts: 0, nextAttemptAt: T0 + 60_000 }, attempts: [] });
      expect(await store.getSubscription('sub_hook')).toMatchObject({ status: 'active', failingSince: null });
      expect(await store.claimDueDeliveries('b', T0 + 29_999, LEASE_MS, 10)).toEqual([]);
      expect(idsOf(await store.claimDueDeliveries('b', T0 + 30_000, LEASE_MS, 10))).toEqual([x!.delivery.id]);
    });

    it('marks a subscription failing from its first failure until a success', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1)], T0);
      const retry = (n: number) => ({ kind: 'retry', at: T0 + n * 1000, error: 'HTTP 503' }) as const;
      const [first] = await store.claimDueDeliveries('a', T0, LEASE_MS, 1);
      await store.recordAttempts('a', [attemptOf(first!.delivery.id, T0 + 10, retry(1))]);
      const [second] = await store.claimDueDeliveries('a', T0 + 1000, LEASE_MS, 1);
      expect(second?.subscription).toMatchObject({ failingSince: T0 + 10, lastSuccessAt: null });
      await store.recordAttempts('a', [attemptOf(second!.delivery.id, T0 + 1010, retry(2))]);
      expect(await store.getSubscription('sub_hook')).toMatchObject({ failingSince: T0 + 10 });
      const [third] = await store.claimDueDeliveries('a', T0 + 2000, LEASE_MS, 1);
      await store.recordAttempts('a', [attemptOf(third!.delivery.id, T0 + 2010, DONE)]);
      expect(await store.getSubscription('sub_hook')).toMatchObject({ status: 'active', failingSince: null, lastSuccessAt: T0 + 2030 });
      expect((await store.getDelivery(first!.delivery.id))?.attempts.map((a) => [a.attemptedAt, a.ok, a.status])).toEqual([
        [T0 + 10, false, 503],
        [T0 + 1010, false, 503],
        [T0 + 2010, true, 200],
      ]);
    });

    it('takes a subscription paused by a 410 out of every store at once: its list, its claims, its due time', async () => {
      await subscribe('sub_gone');
      await subscribe('sub_ok');
      await pollNews(store, [incident(1), incident(2)], T0);
      const other = opened.openAnother();
      expect((await other.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_gone', 'sub_ok']);

      const [claimed] = (await store.claimDueDeliveries('a', T0, LEASE_MS, 10)).filter((c) => c.subscription.id === 'sub_gone');
      const gone = attemptOf(
        claimed!.delivery.id,
        T0 + 10,
        { kind: 'dead', reason: 'the receiver answered 410 Gone' },
        { kind: 'paused', reason: 'the receiver answered 410 Gone' },
      );
      expect(await store.recordAttempts('a', [gone])).toEqual([true]);
      await store.releaseClaims('a');

      expect((await other.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_ok']);
      expect(await other.getSubscription('sub_gone')).toMatchObject({
        status: 'paused',
        pausedReason: 'the receiver answered 410 Gone',
        failingSince: T0 + 10,
        updatedAt: T0 + 30,
      });
      // Its other delivery waits, unclaimed and not counted as due, until it is resumed.
      const claimable = await other.claimDueDeliveries('b', T0 + 100, LEASE_MS, 10);
      expect(claimable.map((c) => c.subscription.id)).toEqual(['sub_ok', 'sub_ok']);
      await other.recordAttempts(
        'b',
        claimable.map((c) => attemptOf(c.delivery.id, T0 + 110, DONE)),
      );
      expect(await other.nextDueAt()).toBeNull();
      const news = await pollNews(other, [incident(3)], T0 + 200);
      expect(news.deliveries.map((d) => d.subscriptionId)).toEqual(['sub_ok']);

      await store.updateSubscription('sub_gone', { status: 'active', pausedReason: null }, T0 + 300);
      expect((await other.activeSubscriptions()).map((s) => s.id)).toEqual(['sub_gone', 'sub_ok']);
      expect(await other.nextDueAt()).toBe(T0);
    });

    it('renews only live claims of their holder: a claim whose lease ran out is left to whoever takes it', async () => {
      for (let n = 1; n <= 3; n++) await subscribe(`sub_${n}`);
      await pollNews(store, [incident(1)], T0);
      const claimed = idsOf(await store.claimDueDeliveries('a', T0, LEASE_MS, 10));
      expect(claimed).toHaveLength(3);
      const [sent, ...waiting] = claimed;
      expect(await store.recordAttempts('a', [attemptOf(sent!, T0 + 10, DONE)])).toEqual([true]);
      const other = opened.openAnother();
      // Not another holder's, not a finished delivery's, not an empty list.
      expect(await other.renewClaims('b', waiting, T0 + 20, LEASE_MS)).toEqual([]);
      expect(await other.renewClaims('a', [sent!], T0 + 20, LEASE_MS)).toEqual([]);
      expect(await other.renewClaims('a', [], T0 + 20, LEASE_MS)).toEqual([]);

      // Renewed just before its lease ends, the claim holds past it.
      const renewedAt = T0 + LEASE_MS - 1;
      expect((await other.renewClaims('a', waiting, renewedAt, LEASE_MS)).sort((x, y) => x - y)).toEqual(waiting);
      expect(await other.claimDueDeliveries('b', T0 + LEASE_MS + 1, LEASE_MS, 10)).toEqual([]);
      expect(await other.nextDueAt()).toBe(renewedAt + LEASE_MS);

      // Once it has run out, it is not renewed, though nobody has taken it yet; the next claim takes it.
      const lapsed = renewedAt + LEASE_MS;
      expect(await store.renewClaims('a', waiting, lapsed, LEASE_MS)).toEqual([]);
      expect(idsOf(await other.claimDueDeliveries('b', lapsed, LEASE_MS, 10))).toEqual(waiting);
      expect(await store.renewClaims('a', waiting, lapsed + 1, LEASE_MS)).toEqual([]);
      expect((await other.renewClaims('b', waiting, lapsed + 1, LEASE_MS)).sort((x, y) => x - y)).toEqual(waiting);
    });

    it("frees a dead holder's claims so they go out at once", async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1), incident(2)], T0);
      expect(await store.claimHolders()).toEqual([]);
      expect(await store.claimDueDeliveries('dead', T0, LEASE_MS, 10)).toHaveLength(2);
      const other = opened.openAnother();
      expect(await other.claimHolders()).toEqual(['dead']);
      expect(await other.releaseClaims('someone-else')).toBe(0);
      expect(await other.releaseClaims('dead')).toBe(2);
      expect(await other.claimHolders()).toEqual([]);
      expect(await other.nextDueAt()).toBe(T0);
      expect(await other.claimDueDeliveries('b', T0 + 1, LEASE_MS, 10)).toHaveLength(2);
    });

    it('drops the pending deliveries of a deleted subscription and keeps what was sent, with its attempts', async () => {
      await subscribe('sub_hook');
      await subscribe('sub_other');
      await pollNews(store, [incident(1), incident(2)], T0);
      const [sent] = (await store.claimDueDeliveries('a', T0, LEASE_MS, 10)).filter((c) => c.subscription.id === 'sub_hook');
      await store.recordAttempts('a', [attemptOf(sent!.delivery.id, T0 + 10, DONE)]);
      await store.releaseClaims('a');
      expect(await store.listDeliveries({ subscriptionId: 'sub_hook' }, null, 10)).toHaveLength(2);

      expect(await opened.openAnother().deleteSubscription('sub_hook')).toBe(true);
      const kept = await store.listDeliveries({ subscriptionId: 'sub_hook' }, null, 10);
      expect(kept.map((d) => [d.id, d.state])).toEqual([[sent!.delivery.id, 'done']]);
      expect((await store.getDelivery(sent!.delivery.id))?.attempts).toHaveLength(1);
      expect(await store.listDeliveries({ subscriptionId: 'sub_other' }, null, 10)).toHaveLength(2);
      expect(await store.deliveryCounts(T0)).toMatchObject({ pending: 2, done: 1 });
    });

    it('replays a delivery with the same key, at once, keeping its attempts on record', async () => {
      await subscribe('sub_hook');
      await pollNews(store, [incident(1)], T0);
      const [claimed] = await store.claimDueDeliveries('a', T0, LEASE_MS, 1);
      const { id, key } = claimed!.delivery;
      await store.recordAttempts('a', [attemptOf(id, T0 + 10, { kind: 'dead', reason: 'HTTP 400' })]);

      expect(await opened.openAnother().replayDelivery(id, T0 + 60_000)).toBe(true);
      const replayed = await store.getDelivery(id);
      expect(replayed?.delivery).toMatchObject({ id, key, state: 'pending', attempts: 1, nextAttemptAt: T0 + 60_000, finishedAt: null, lastError: null });
      expect(replayed?.attempts).toHaveLength(1);
      expect(await store.nextDueAt()).toBe(T0 + 60_000);
      const [again] = await store.claimDueDeliveries('b', T0 + 60_000, LEASE_MS, 10);
      expect(again?.delivery).toMatchObject({ id, key, attempts: 1 });
      expect(await store.replayDelivery(id + 1000, T0)).toBe(false);
      expect(await store.listDeliveries({}, null, 10)).toHaveLength(1);
    });

    it('replays what was created since a time, of one subscription or one state, and counts it', async () => {
      await subscribe('sub_a');
      await subscribe('sub_b');
      await pollNews(store, [incident(1)], T0);
      await pollNews(store, [incident(2)], T0 + 60_000);
      const claimed = await store.claimDueDeliveries('a', T0 + 60_000, LEASE_MS, 10);
      await store.recordAttempts(
        'a',
        claimed.map((c) => attemptOf(c.delivery.id, T0 + 60_010, c.subscription.id === 'sub_a' ? DONE : { kind: 'dead', reason: 'HTTP 404' })),
      );
      const REPLAY_AT = T0 + 120_000;
      expect(await store.replayDeliveriesSince(T0 + 60_000, { subscriptionId: 'sub_a' }, REPLAY_AT)).toBe(1);
      expect(await store.replayDeliveriesSince(T0, { state: 'dead' }, REPLAY_AT)).toBe(2);
      expect(await store.replayDeliveriesSince(T0 + 60_001, {}, REPLAY_AT)).toBe(0);
      const states = (await store.listDeliveries({}, null, 10)).map((d) => [d.subscriptionId, d.createdAt, d.state, d.nextAttemptAt === REPLAY_AT]);
      expect(states.sort()).toEqual(
        [
          ['sub_a', T0, 'done', false],
          ['sub_a', T0 + 60_000, 'pending', true],
          ['sub_b', T0, 'pending', true],
          ['sub_b', T0 + 60_000, 'pending', true],
        ].sort(),
      );
    });

    it('lists deliveries newest first, in pages before an id, by subscription and state', async () => {
      await subscribe('sub_a');
      await subscribe('sub_b');
      await pollNews(store, [incident(1)], T0);
      await pollNews(store, [incident(2)], T0 + 1000);
      const all = await store.listDeliveries({}, null, 10);
      expect(all).toHaveLength(4);
      expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((a, b) => b - a));
      expect(all.map((d) => d.createdAt)).toEqual([T0 + 1000, T0 + 1000, T0, T0]);
      const page = await store.listDeliveries({}, all[1]!.id, 2);
      expect(page.map((d) => d.id)).toEqual([all[2]!.id, all[3]!.id]);
      expect((await store.listDeliveries({ subscriptionId: 'sub_b' }, null, 10)).every((d) => d.subscriptionId === 'sub_b')).toBe(true);
      expect(await store.listDeliveries({ subscriptionId: 'sub_b' }, null, 10)).toHaveLength(2);
      expect(await store.listDeliveries({ state: 'done' }, null, 10)).toEqual([]);
      expect(await store.listDeliveries({ sinceMs: T0 + 1 }, null, 10)).toEqual(all.slice(0, 2));
      expect(await store.getDelivery(all[0]!.id + 1000)).toBeNull();
    });
  });
}
