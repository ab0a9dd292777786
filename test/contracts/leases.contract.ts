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
