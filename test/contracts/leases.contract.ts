/** The lease contract: one poller at a time across processes or isolates sharing the database. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
const TTL_MS = 60_000;

export function leaseContract(target: StoreTarget): void {
  describe(`leases (${target.name})`, () => {
    let opened: OpenedStore;
    beforeEach(async () => {
      opened = await target.open();
    });
    afterEach(() => opened.close());

    it('lets one holder in at a time, and the same holder again (it renews)', async () => {
      const { store } = opened;
      const other = opened.openAnother();
      expect(await store.tryAcquireLease('poll', 'a', T0, TTL_MS)).toBe(true);
      expect(await other.tryAcquireLease('poll', 'b', T0 + 1, TTL_MS)).toBe(false);
      expect(await store.tryAcquireLease('poll', 'a', T0 + 2, TTL_MS)).toBe(true);
      expect(await other.leaseHolder('poll')).toBe('a');
      // Renewed at T0 + 2: still a's one millisecond after the first lease would have ended.
      expect(await other.tryAcquireLease('poll', 'b', T0 + TTL_MS + 1, TTL_MS)).toBe(false);
    });

    it('gives an expired lease to the next holder, and never lets the old one release it', async () => {
      const { store } = opened;
      expect(await store.tryAcquireLease('poll', 'a', T0, TTL_MS)).toBe(true);
      expect(await store.tryAcquireLease('poll', 'b', T0 + TTL_MS, TTL_MS)).toBe(true);
      await store.releaseLease('poll', 'a');
      expect(await store.leaseHolder('poll')).toBe('b');
      await store.releaseLease('poll', 'b');
      expect(await store.leaseHolder('poll')).toBeNull();
      expect(await store.tryAcquireLease('poll', 'c', T0 + TTL_MS + 1, TTL_MS)).toBe(true);
    });

    it("opens a poll with the lease and its first reads in one step, and gives the lease back with the poll's last write", async () => {
      const { store } = opened;
      const other = opened.openAnother();
      const claim = (holder: string, now: number) => ({ name: 'poll', holder, now, ttlMs: TTL_MS });
      const opening = await store.openPoll(claim('a', T0));
      expect(opening).toEqual({
        acquired: true,
        lastDiff: { generation: 0, diffed: null },
        latestMonitor: null,
        seeded: false,
        lastGoodReadAt: null,
        subscriptionsVersion: '0',
      });
      expect(await other.openPoll(claim('b', T0 + 1))).toMatchObject({ acquired: false });
      expect(await other.leaseHolder('poll')).toBe('a');

      // The run of a poll that applied nothing, with the lease given back in the same step.
      const run = { id: 'run-open', startedAt: T0, finishedAt: T0 + 5, outcome: 'ok' as const, sources: [], changes: {} };
      await store.recordPollRun(run, [], { name: 'poll', holder: 'a' });
      expect(await other.leaseHolder('poll')).toBeNull();
      expect(await other.listPollRuns(null, 10)).toEqual([expect.objectContaining({ id: 'run-open' })]);

      // A piece of a poll gives it back too, and never another holder's.
      // The run read the main feed: the next poll opens knowing its last good read.
      expect(await other.openPoll(claim('b', T0 + 2))).toMatchObject({ acquired: true, lastGoodReadAt: T0 });
      const piece = {
        run: { ...run, id: 'run-piece' },
        plan: { writes: [], events: [] },
        deliveries: [],
        seenIds: [],
        seenBefore: T0,
        rejected: [],
        markSeeded: true,
      };
      await store.applyPoll({ ...piece, releaseLease: { name: 'poll', holder: 'a' } });
      expect(await store.leaseHolder('poll')).toBe('b');
      await other.applyPoll({ ...piece, releaseLease: { name: 'poll', holder: 'b' } });
      expect(await store.leaseHolder('poll')).toBeNull();
      expect((await store.openPoll(claim('c', T0 + 3))).seeded).toBe(true);
    });

    it('takes a lease over from a dead holder only while it is still theirs', async () => {
      const { store } = opened;
      expect(await store.tryAcquireLease('poll', 'dead', T0, TTL_MS)).toBe(true);
      expect(await store.takeOverLease('poll', 'someone-else', 'b', T0 + 1, TTL_MS)).toBe(false);
      expect(await store.takeOverLease('poll', 'dead', 'b', T0 + 1, TTL_MS)).toBe(true);
      expect(await store.leaseHolder('poll')).toBe('b');
      expect(await store.takeOverLease('poll', 'dead', 'c', T0 + 2, TTL_MS)).toBe(false);
    });

    it('lets exactly one of many simultaneous takers win a free lease', async () => {
      const stores = [opened.store, opened.openAnother(), opened.openAnother()];
      const won = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.tryAcquireLease('poll', `holder-${i}`, T0, TTL_MS)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await opened.store.leaseHolder('poll')).toBe(`holder-${won.indexOf(true)}`);
    });
  });
}
