/**
 * The one-time key store's contract: an OAuth state is consumed once, a slash command's
 * signature is new once, keys expire, and each kind stays within its bound however many come.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OneTimeKey, Store } from '../../src/core/ports.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const key = (over: Partial<OneTimeKey> = {}): OneTimeKey => ({ kind: 'oauth-state', key: 'k1', payload: 'session-a', expiresAt: T0 + 600_000, ...over });

export function oneTimeKeysContract(target: StoreTarget): void {
  describe(`one-time keys (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('gives a key back once, to one of many racing processes, with its payload', async () => {
      expect(await store.rememberKey(key(), T0, 100)).toBe(true);
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const taken = await Promise.all(Array.from({ length: 9 }, (_, n) => stores[n % 3]!.consumeKey('oauth-state', 'k1', T0 + 1)));
      expect(taken.filter((p) => p !== null)).toEqual(['session-a']);
      expect(await store.consumeKey('oauth-state', 'k1', T0 + 2)).toBeNull();
      expect(await store.consumeKey('oauth-state', 'never', T0 + 2)).toBeNull();
    });

    it('says a live key is not new (a replay), once for racing processes; after it expires it is new again', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const fresh = await Promise.all(stores.map((s) => s.rememberKey(key({ kind: 'slash-signature', key: 'v0=abc' }), T0, 100)));
      expect(fresh.filter(Boolean)).toHaveLength(1);
      expect(await store.rememberKey(key({ kind: 'slash-signature', key: 'v0=abc' }), T0 + 599_999, 100)).toBe(false);
      expect(await store.rememberKey(key({ kind: 'slash-signature', key: 'v0=abc', expiresAt: T0 + 1_200_000 }), T0 + 600_000, 100)).toBe(true);
    });

    it('takes a key named with its owner only for that owner: one shown by anyone else stays', async () => {
      await store.rememberKey(key(), T0, 100);
      expect(await store.consumeKey('oauth-state', 'k1', T0 + 1, 'session-b')).toBeNull();
      expect(await opened.openAnother().consumeKey('oauth-state', 'k1', T0 + 1, 'session-b')).toBeNull();
      expect(await store.consumeKey('oauth-state', 'k1', T0 + 2, 'session-a')).toBe('session-a');
      expect(await store.consumeKey('oauth-state', 'k1', T0 + 3, 'session-a')).toBeNull();
    });

    it('does not give an expired key back', async () => {
      await store.rememberKey(key(), T0, 100);
      expect(await store.consumeKey('oauth-state', 'k1', T0 + 600_000)).toBeNull();
    });

    it('keeps kinds apart: the same key of another kind is another key', async () => {
      await store.rememberKey(key(), T0, 100);
      expect(await store.rememberKey(key({ kind: 'slash-signature' }), T0, 100)).toBe(true);
      expect(await store.consumeKey('slash-signature', 'k1', T0)).toBe('session-a');
      expect(await store.consumeKey('oauth-state', 'k1', T0)).toBe('session-a');
    });

    it('holds at most maxKeys of a kind, dropping the oldest, and leaves other kinds alone', async () => {
      await store.rememberKey(key({ kind: 'other', key: 'keep' }), T0, 1);
      for (let n = 0; n < 30; n++) await store.rememberKey(key({ key: `k${n}`, payload: `p${n}` }), T0 + n, 10);
      // The ten newest are there, the twenty before them are gone.
      expect(await store.consumeKey('oauth-state', 'k19', T0 + 100)).toBeNull();
      expect(await store.consumeKey('oauth-state', 'k20', T0 + 100)).toBe('p20');
      expect(await store.consumeKey('oauth-state', 'k29', T0 + 100)).toBe('p29');
      expect(await store.consumeKey('other', 'keep', T0 + 100)).toBe('session-a');
      // A flood of new keys cannot grow the kind past its bound: count what is left by consuming.
      let left = 0;
      for (let n = 0; n < 30; n++) if ((await store.consumeKey('oauth-state', `k${n}`, T0 + 100)) !== null) left++;
      expect(left).toBe(8);
    });
  });
}
