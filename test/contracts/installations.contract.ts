/**
 * The installation store's contract: a refresh token is spent by one process at most, and a new
 * pair the vendor issued is never lost to a racing writer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewInstallation, SealedTokenPair, Store } from '../../src/core/ports.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
const CLAIM_TTL_MS = 10_000;

// Stand-ins for sealed text: the store compares them as opaque strings, as it does sealed tokens.
const install = (over: Partial<NewInstallation> = {}): NewInstallation => ({
  id: 'inst-1',
  teamId: 'T0001',
  teamName: 'Acme',
  botUserId: 'U0BOT',
  scopes: ['chat:write', 'channels:read'],
  accessTokenSealed: 'sealed-access-1',
  refreshTokenSealed: 'sealed-refresh-1',
  accessExpiresAt: T0 + 43_200_000,
  ...over,
});
const pair = (n: number): SealedTokenPair => ({
  accessTokenSealed: `sealed-access-${n}`,
  refreshTokenSealed: `sealed-refresh-${n}`,
  accessExpiresAt: T0 + n * 1000,
});

export function installationsContract(target: StoreTarget): void {
  describe(`installations (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('saves an installation and gives it back, active, as another process reads it', async () => {
      const saved = await store.saveInstallation(install(), T0);
      expect(saved).toMatchObject({ id: 'inst-1', teamId: 'T0001', teamName: 'Acme', state: 'active', reason: null, refreshClaimedAt: null, updatedAt: T0 });
      const read = await opened.openAnother().findInstallation('inst-1');
      expect(read).toEqual(saved);
      expect(read?.scopes).toEqual(['channels:read', 'chat:write']);
      expect(await store.findInstallation('nope')).toBeNull();
    });

    it('lets exactly one of many racing processes claim a refresh, and a claim lapses after its TTL', async () => {
      await store.saveInstallation(install(), T0);
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const won = await Promise.all(Array.from({ length: 12 }, (_, n) => stores[n % 3]!.claimRefresh('inst-1', 'sealed-refresh-1', T0, CLAIM_TTL_MS)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await store.findInstallation('inst-1'))?.refreshClaimedAt).toBe(T0);
      // The winner crashed before it wrote: a fresh process takes the claim once it has lapsed.
      expect(await stores[1]!.claimRefresh('inst-1', 'sealed-refresh-1', T0 + CLAIM_TTL_MS - 1, CLAIM_TTL_MS)).toBe(false);
      expect(await stores[1]!.claimRefresh('inst-1', 'sealed-refresh-1', T0 + CLAIM_TTL_MS, CLAIM_TTL_MS)).toBe(true);
      // A claim on a refresh token that is not the stored one never succeeds.
      expect(await stores[2]!.claimRefresh('inst-1', 'sealed-refresh-0', T0 + 60_000, CLAIM_TTL_MS)).toBe(false);
    });

    it('swaps the pair only on the old refresh token: the loser of a race learns it lost and reads the winner', async () => {
      await store.saveInstallation(install(), T0);
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const won = await Promise.all(stores.map((s, n) => s.swapTokens('inst-1', 'sealed-refresh-1', pair(10 + n), T0 + 1)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = 10 + won.indexOf(true);
      const read = await stores[(won.indexOf(true) + 1) % 3]!.findInstallation('inst-1');
      expect(read).toMatchObject({ ...pair(winner), refreshClaimedAt: null, state: 'active' });
      // The spent refresh token is no key any more.
      expect(await store.swapTokens('inst-1', 'sealed-refresh-1', pair(99), T0 + 2)).toBe(false);
      expect(await store.claimRefresh('inst-1', 'sealed-refresh-1', T0 + 2, CLAIM_TTL_MS)).toBe(false);
      expect((await store.findInstallation('inst-1'))?.refreshTokenSealed).toBe(`sealed-refresh-${winner}`);
    });

    it('a swap clears the claim, so the next rotation can be claimed at once', async () => {
      await store.saveInstallation(install(), T0);
      expect(await store.claimRefresh('inst-1', 'sealed-refresh-1', T0 + 1, CLAIM_TTL_MS)).toBe(true);
      // The row's updatedAt is when its pair was stored, claimed or not: the token's lifetime is read from it.
      expect(await store.findInstallation('inst-1')).toMatchObject({ refreshClaimedAt: T0 + 1, updatedAt: T0 });
      expect(await store.swapTokens('inst-1', 'sealed-refresh-1', pair(2), T0 + 5)).toBe(true);
      expect(await store.findInstallation('inst-1')).toMatchObject({ refreshClaimedAt: null, updatedAt: T0 + 5 });
      expect(await store.claimRefresh('inst-1', 'sealed-refresh-2', T0 + 6, CLAIM_TTL_MS)).toBe(true);
    });

    it('a broken installation keeps its tokens but cannot be claimed or swapped; re-installing makes it active again', async () => {
      await store.saveInstallation(install(), T0);
      // Only the first of racing processes moves it from active: that one tells the admin.
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const moved = await Promise.all(stores.map((s) => s.markBroken('inst-1', 'invalid_refresh_token', T0 + 1)));
      expect(moved.filter(Boolean)).toHaveLength(1);
      const broken = await store.findInstallation('inst-1');
      expect(broken).toMatchObject({ state: 'broken', reason: 'invalid_refresh_token', refreshTokenSealed: 'sealed-refresh-1' });
      expect(await store.claimRefresh('inst-1', 'sealed-refresh-1', T0 + 2, CLAIM_TTL_MS)).toBe(false);
      expect(await store.swapTokens('inst-1', 'sealed-refresh-1', pair(2), T0 + 2)).toBe(false);
      // Same team, a new install under a new id: the old id is kept, so its deliveries resume.
      // The workspace was renamed in between: the re-install brings the name it has now.
      const again = await store.saveInstallation(install({ id: 'inst-2', teamName: 'Acme Corp', ...pair(3) }), T0 + 3);
      expect(again).toMatchObject({ id: 'inst-1', teamName: 'Acme Corp', state: 'active', reason: null, ...pair(3) });
      expect(await store.findInstallation('inst-2')).toBeNull();
    });

    it('uninstalling removes the tokens', async () => {
      await store.saveInstallation(install(), T0);
      expect(await store.markUninstalled('inst-1', 'app_uninstalled', T0 + 1)).toBe(true);
      // Told once: a second uninstall (the vendor repeating it) changes nothing and says so.
      expect(await opened.openAnother().markUninstalled('inst-1', 'app_uninstalled', T0 + 2)).toBe(false);
      expect(await store.findInstallation('inst-1')).toMatchObject({
        state: 'uninstalled',
        reason: 'app_uninstalled',
        accessTokenSealed: null,
        refreshTokenSealed: null,
      });
      expect(await store.claimRefresh('inst-1', 'sealed-refresh-1', T0 + 2, CLAIM_TTL_MS)).toBe(false);
    });

    it('lists the newest installations first, at most the limit asked for', async () => {
      for (let n = 0; n < 5; n++) await store.saveInstallation(install({ id: `inst-${n}`, teamId: `T${n}` }), T0 + n);
      const listed = await store.listInstallations(3);
      expect(listed.map((x) => x.id)).toEqual(['inst-4', 'inst-3', 'inst-2']);
    });
  });
}
