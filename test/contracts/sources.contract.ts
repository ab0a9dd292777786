/**
 * The sources contract: a source is added once per address and never past the cap, even when
 * many are added at once from several stores; it is listed and found from any store; removing
 * it takes its component states along; components keep the time their state last changed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SourceRecord, Store } from '../../src/core/ports.ts';
import type { ComponentState } from '../../src/core/statuspage/mapping.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 27, 9);
const source = (n: number, url = `https://status${n}.example.com`): SourceRecord => ({
  id: `src_${n}`,
  kind: 'statuspage',
  name: `Vendor ${n}`,
  url,
  createdAt: T0 + n,
});
const component = (id: string, status: ComponentState['status'], extra: Partial<ComponentState> = {}): ComponentState => ({
  id,
  name: `Component ${id}`,
  status,
  vendorStatus: status,
  groupId: null,
  position: Number(id.replace(/\D/g, '')) || null,
  isGroup: false,
  ...extra,
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
      // Written after the source is gone: nothing comes back.
      await store.saveComponentStates('src_1', [component('c1', 'operational')], T0);
      await store.savePollState('src_1', state);
      expect(await store.componentStates('src_1')).toEqual([]);
      expect(await store.getSource('src_1')).toBeNull();
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
  });
}
