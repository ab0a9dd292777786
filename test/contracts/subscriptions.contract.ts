/**
 * The subscriptions contract: what a subscriber, an admin and the poller see of subscriptions and
 * their email link tokens, from one store and from another process or isolate on the same database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

export function subscriptionsContract(target: StoreTarget): void {
  describe(`subscriptions (${target.name})`, () => {
    let opened: OpenedStore;
    beforeEach(async () => {
      opened = await target.open();
    });
    afterEach(() => opened.close());

    const ids = (list: readonly { id: string }[]) => list.map((s) => s.id);

    it('reads a subscription back exactly as created, by id and by channel and target, from another store too', async () => {
      const { store } = opened;
      const hook = storedSubscription(
        'sub_hook',
        {
          filters: { services: ['Files', 'Login/SSO'], types: ['outage'], events: ['incident.created'] },
          timeZone: 'Europe/Berlin',
          origin: 'public',
          previousSecretSealed: 'old-sealed',
          previousSecretUntil: T0 + 86_400_000,
          failingSince: T0 - 1,
          lastSuccessAt: T0 - 2,
        },
        T0,
      );
      await store.createSubscription(hook);
      const other = opened.openAnother();
      expect(await other.getSubscription('sub_hook')).toEqual(hook);
      // An app subscription's target is ids; the conversation's name, as the vendor gave it, comes back with it.
      const app = storedSubscription('sub_app', { channel: 'app', target: 'inst-1/C0STATUS', targetName: 'status-updates' }, T0);
      await store.createSubscription(app);
      expect(await other.getSubscription('sub_app')).toEqual(app);
      expect(await other.findSubscription('webhook', hook.target)).toEqual(hook);
      expect(await other.findSubscription('channel', hook.target)).toBeNull();
      expect(await other.getSubscription('sub_missing')).toBeNull();
    });

    it('refuses a second subscription with the same id and keeps the first', async () => {
      const { store } = opened;
      await store.createSubscription(storedSubscription('sub_a', {}, T0));
      await expect(store.createSubscription(storedSubscription('sub_a', { channel: 'email', target: 'x@example.test' }, T0))).rejects.toThrow();
      expect(await store.getSubscription('sub_a')).toEqual(storedSubscription('sub_a', {}, T0));
      expect(await store.findSubscription('email', 'x@example.test')).toBeNull();
    });

    it('keeps one app subscription per conversation, from any store, while other channels may repeat a target', async () => {
      const { store } = opened;
      const app = (id: string, target = 'inst_1/C1') => storedSubscription(id, { channel: 'app', target }, T0);
      expect(await store.createSubscription(app('sub_a'))).toBe(true);
      expect(await opened.openAnother().createSubscription(app('sub_b'))).toBe(false);
      expect(await store.getSubscription('sub_b')).toBeNull();
      expect(await store.createSubscription(app('sub_c', 'inst_1/C2'))).toBe(true);
      const hook = (id: string) => storedSubscription(id, { channel: 'webhook', target: 'https://hooks.example.test/x' }, T0);
      expect([await store.createSubscription(hook('sub_d')), await store.createSubscription(hook('sub_e'))]).toEqual([true, true]);
    });

    it('lists in id order after a cursor, by status and by channel', async () => {
      const { store } = opened;
      await store.createSubscription(storedSubscription('sub_c', { channel: 'email', target: 'c@example.test', status: 'pending', origin: 'public' }, T0));
      await store.createSubscription(storedSubscription('sub_a', {}, T0));
      await store.createSubscription(storedSubscription('sub_b', { status: 'paused', pausedReason: 'gone' }, T0));
      expect(ids(await store.listSubscriptions({}, null, 10))).toEqual(['sub_a', 'sub_b', 'sub_c']);
      expect(ids(await store.listSubscriptions({}, null, 2))).toEqual(['sub_a', 'sub_b']);
      expect(ids(await store.listSubscriptions({}, 'sub_b', 2))).toEqual(['sub_c']);
      expect(ids(await store.listSubscriptions({ status: 'paused' }, null, 10))).toEqual(['sub_b']);
      expect(ids(await store.listSubscriptions({ channel: 'webhook' }, 'sub_a', 10))).toEqual(['sub_b']);
      expect(ids(await store.listSubscriptions({ channel: 'email', status: 'active' }, null, 10))).toEqual([]);
    });

    it('lists the failing subscriptions only, when asked, with the other filters and the cursor', async () => {
      const { store } = opened;
      await store.createSubscription(storedSubscription('sub_a', { failingSince: T0 - 60_000 }, T0));
      await store.createSubscription(storedSubscription('sub_b', {}, T0));
      await store.createSubscription(storedSubscription('sub_c', { status: 'paused', pausedReason: 'gone', failingSince: T0 - 1 }, T0));
      await store.createSubscription(storedSubscription('sub_d', { failingSince: T0 }, T0));
      expect(ids(await store.listSubscriptions({ failing: true }, null, 10))).toEqual(['sub_a', 'sub_c', 'sub_d']);
      expect(ids(await store.listSubscriptions({ failing: true }, 'sub_a', 1))).toEqual(['sub_c']);
      expect(ids(await store.listSubscriptions({ failing: true, status: 'active' }, null, 10))).toEqual(['sub_a', 'sub_d']);
      expect(ids(await store.listSubscriptions({ failing: false }, null, 10))).toEqual(['sub_a', 'sub_b', 'sub_c', 'sub_d']);
    });

    it('changes only the patched fields and when it was updated; nothing for an unknown id', async () => {
      const { store } = opened;
      const created = storedSubscription('sub_a', { previousSecretSealed: 'old', previousSecretUntil: T0 + 5 }, T0);
      await store.createSubscription(created);
      const updated = await store.updateSubscription(
        'sub_a',
        { filters: { services: ['Calls'] }, previousSecretSealed: null, previousSecretUntil: null },
        T0 + 60_000,
      );
      const expected = { ...created, filters: { services: ['Calls'] }, previousSecretSealed: null, previousSecretUntil: null, updatedAt: T0 + 60_000 };
      expect(updated).toEqual(expected);
      expect(await opened.openAnother().getSubscription('sub_a')).toEqual(expected);
      expect(await store.updateSubscription('sub_missing', { status: 'paused' }, T0)).toBeNull();
      expect(await store.getSubscription('sub_missing')).toBeNull();
    });

    it('gives the poller the active subscriptions only, and another store sees every change at once', async () => {
      const { store } = opened;
      const other = opened.openAnother();
      await store.createSubscription(storedSubscription('sub_a', {}, T0));
      await store.createSubscription(storedSubscription('sub_pending', { channel: 'email', target: 'p@example.test', status: 'pending' }, T0));
      // Read first, so a store that keeps the list would hold it when the changes come.
      expect(ids(await other.activeSubscriptions())).toEqual(['sub_a']);

      await store.updateSubscription('sub_pending', { status: 'active' }, T0 + 1);
      expect(ids(await other.activeSubscriptions())).toEqual(['sub_a', 'sub_pending']);
      await store.updateSubscription('sub_a', { status: 'paused', pausedReason: 'paused by an admin' }, T0 + 2);
      expect(ids(await other.activeSubscriptions())).toEqual(['sub_pending']);
      await store.updateSubscription('sub_pending', { filters: { services: ['Files'] } }, T0 + 3);
      expect((await other.activeSubscriptions())[0]?.filters).toEqual({ services: ['Files'] });
      await store.createSubscription(storedSubscription('sub_b', {}, T0 + 4));
      expect(ids(await other.activeSubscriptions())).toEqual(['sub_b', 'sub_pending']);
      expect(await store.deleteSubscription('sub_b')).toBe(true);
      expect(ids(await other.activeSubscriptions())).toEqual(['sub_pending']);
      expect(await store.deleteSubscription('sub_b')).toBe(false);
    });

    it('gives the poller each active subscription whole, and an empty list before any subscription exists', async () => {
      const { store } = opened;
      expect(await store.activeSubscriptions()).toEqual([]);
      await store.createSubscription(
        storedSubscription(
          'sub_full',
          { channel: 'webhook', target: 'https://hooks.example.test/a', filters: { services: ['Calls'] }, secretSealed: 'sealed-1' },
          T0,
        ),
      );
      await store.updateSubscription('sub_full', { previousSecretSealed: 'sealed-0', previousSecretUntil: T0 + 5, failingSince: T0 + 1 }, T0 + 2);
      expect(await store.activeSubscriptions()).toEqual([await store.getSubscription('sub_full')]);
    });

    it('saves a link token, finds it by hash, marks it used, and forgets it with its subscription', async () => {
      const { store } = opened;
      await store.createSubscription(storedSubscription('sub_mail', { channel: 'email', target: 'm@example.test', status: 'pending', origin: 'public' }, T0));
      await store.saveToken({ hash: HASH_A, purpose: 'confirm', subscriptionId: 'sub_mail', expiresAt: T0 + 1000 });
      await store.saveToken({ hash: HASH_B, purpose: 'unsubscribe', subscriptionId: 'sub_mail', expiresAt: T0 + 2000 });
      const other = opened.openAnother();
      expect(await other.findToken(HASH_A)).toEqual({ hash: HASH_A, purpose: 'confirm', subscriptionId: 'sub_mail', expiresAt: T0 + 1000, usedAt: null });
      expect(await other.findToken('c'.repeat(64))).toBeNull();

      await other.markTokenUsed(HASH_A, T0 + 500);
      expect(await store.findToken(HASH_A)).toMatchObject({ usedAt: T0 + 500 });
      expect(await store.findToken(HASH_B)).toMatchObject({ purpose: 'unsubscribe', usedAt: null });

      expect(await store.deleteSubscription('sub_mail')).toBe(true);
      expect(await other.findToken(HASH_A)).toBeNull();
      expect(await other.findToken(HASH_B)).toBeNull();
    });
  });
}
