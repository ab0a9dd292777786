/**
 * The app message store's contract: one process wins the right to post an incident's
 * root, a stalled post is taken over once, the root's revision only rises and an older one keeps
 * the newer note, started replies are remembered within their bound, a monitor message is begun
 * once per delivery and its subscription keeps the newest 50, a subscription's rows go with it,
 * and a conversation's hold only ever grows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NoteRef } from '../../src/core/events.ts';
import type { Store } from '../../src/core/ports.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const note = (body: string): NoteRef => ({ key: `k-${body}`, date_created: '2026-11-23T09:00:00Z', body });
const root = (key: string) => ({ subscriptionId: 'sub_a', incidentId: '1600', conversationId: 'C1', key, revision: 1 });

export function appMessagesContract(target: StoreTarget): void {
  describe(`app messages (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    it('lets one of many racing deliveries begin the root, and keeps who did', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const began = await Promise.all(stores.map((s, n) => s.beginAppRoot(root(`d${n}`), T0)));
      expect(began.filter(Boolean)).toHaveLength(1);
      const row = await store.findAppRoot('sub_a', '1600');
      expect(row).toMatchObject({ conversationId: 'C1', rootTs: null, rootKey: `d${began.indexOf(true)}`, revision: 1, note: null, startedReplies: [] });
      expect(await store.findAppRoot('sub_a', '9999')).toBeNull();
    });

    it('hands a stalled post over once, and never once the root is known', async () => {
      await store.beginAppRoot(root('d1'), T0);
      const other = opened.openAnother();
      const taken = await Promise.all([store.takeOverAppRoot('sub_a', '1600', 'd1', 'd2', T0 + 1), other.takeOverAppRoot('sub_a', '1600', 'd1', 'd3', T0 + 1)]);
      expect(taken.filter(Boolean)).toHaveLength(1);
      await store.recordAppRoot('sub_a', '1600', { ts: '1.000001', revision: 1, note: null }, T0 + 2);
      const key = (await store.findAppRoot('sub_a', '1600'))!.rootKey;
      expect(await store.takeOverAppRoot('sub_a', '1600', key, 'd4', T0 + 3)).toBe(false);
    });

    it('starts a deleted root over once, for one of racing deliveries, keeping what it showed', async () => {
      await store.beginAppRoot(root('d1'), T0);
      await store.recordAppRoot('sub_a', '1600', { ts: '1.000001', revision: 3, note: note('third') }, T0 + 1);
      expect(await store.restartAppRoot('sub_a', '1600', '7.000007', 'd2', T0 + 2)).toBe(false);
      const other = opened.openAnother();
      const restarted = await Promise.all([
        store.restartAppRoot('sub_a', '1600', '1.000001', 'd2', T0 + 3),
        other.restartAppRoot('sub_a', '1600', '1.000001', 'd3', T0 + 3),
      ]);
      expect(restarted.filter(Boolean)).toHaveLength(1);
      const row = await store.findAppRoot('sub_a', '1600');
      expect(row).toMatchObject({ rootTs: null, rootKey: restarted[0] ? 'd2' : 'd3', revision: 3, note: note('third'), createdAt: T0 + 3 });
      // The new root's ts is recorded in place of the deleted one.
      await store.recordAppRoot('sub_a', '1600', { ts: '2.000002', revision: 3, note: null }, T0 + 4);
      expect(await store.findAppRoot('sub_a', '1600')).toMatchObject({ rootTs: '2.000002', note: note('third') });
    });

    it('keeps the first ts, raises the revision only, and lets an older revision not replace the note', async () => {
      await store.beginAppRoot(root('d1'), T0);
      await store.recordAppRoot('sub_a', '1600', { ts: '1.000001', revision: 3, note: note('third') }, T0 + 1);
      await store.recordAppRoot('sub_a', '1600', { ts: '9.000009', revision: 2, note: note('second') }, T0 + 2);
      expect(await store.findAppRoot('sub_a', '1600')).toMatchObject({ rootTs: '1.000001', revision: 3, note: note('third') });
      // A newer revision without a note keeps the note shown.
      await store.recordAppRoot('sub_a', '1600', { ts: '1.000001', revision: 4, note: null }, T0 + 3);
      expect(await store.findAppRoot('sub_a', '1600')).toMatchObject({ revision: 4, note: note('third'), updatedAt: T0 + 3 });
    });

    it('remembers started replies once each, the newest 50', async () => {
      await store.beginAppRoot(root('d0'), T0);
      await store.startAppReply('sub_a', '1600', 'r1', T0);
      await store.startAppReply('sub_a', '1600', 'r1', T0);
      expect((await store.findAppRoot('sub_a', '1600'))!.startedReplies).toEqual(['r1']);
      for (let n = 2; n <= 60; n++) await store.startAppReply('sub_a', '1600', `r${n}`, T0 + n);
      const started = (await store.findAppRoot('sub_a', '1600'))!.startedReplies;
      expect(started).toHaveLength(50);
      expect(started).toEqual(Array.from({ length: 50 }, (_, i) => `r${i + 11}`));
    });

    it('lets a monitor message begin once per delivery, keeps its first ts, and the newest 50 per subscription', async () => {
      const stores = [store, opened.openAnother(), opened.openAnother()];
      const began = await Promise.all(stores.map((s) => s.beginAppMonitorPost('sub_a', 'm0', T0)));
      expect(began.filter(Boolean)).toHaveLength(1);
      expect(await store.findAppMonitorPost('sub_a', 'm0')).toEqual({ subscriptionId: 'sub_a', deliveryKey: 'm0', ts: null, createdAt: T0 });
      await store.recordAppMonitorPost('sub_a', 'm0', '1.000001');
      await store.recordAppMonitorPost('sub_a', 'm0', '9.000009');
      expect((await store.findAppMonitorPost('sub_a', 'm0'))!.ts).toBe('1.000001');
      expect(await store.findAppMonitorPost('sub_b', 'm0')).toBeNull();

      expect(await store.beginAppMonitorPost('sub_b', 'b0', T0)).toBe(true);
      for (let n = 1; n <= 60; n++) expect(await store.beginAppMonitorPost('sub_a', `m${n}`, T0 + n)).toBe(true);
      const kept = await Promise.all(Array.from({ length: 61 }, (_, n) => store.findAppMonitorPost('sub_a', `m${n}`)));
      expect(kept.map((row, n) => (row ? n : null)).filter((n) => n !== null)).toEqual(Array.from({ length: 50 }, (_, i) => i + 11));
      // Another subscription's rows are not counted against this one's bound.
      expect(await store.findAppMonitorPost('sub_b', 'b0')).not.toBeNull();
      // One begun with an older clock than the rest is still kept: it is the one about to post.
      expect(await store.beginAppMonitorPost('sub_a', 'late', T0)).toBe(true);
      expect(await store.findAppMonitorPost('sub_a', 'late')).not.toBeNull();
    });

    it('deletes a subscription’s roots and monitor messages with it, and no other’s', async () => {
      for (const id of ['sub_a', 'sub_b']) {
        await store.createSubscription(storedSubscription(id, { channel: 'app', target: `inst/${id === 'sub_a' ? 'C1' : 'C2'}` }, T0));
        await store.beginAppRoot({ ...root('d1'), subscriptionId: id }, T0);
        await store.startAppReply(id, '1600', 'r1', T0);
        await store.beginAppMonitorPost(id, 'm1', T0);
      }
      expect(await opened.openAnother().deleteSubscription('sub_a')).toBe(true);
      expect(await store.findAppRoot('sub_a', '1600')).toBeNull();
      expect(await store.findAppMonitorPost('sub_a', 'm1')).toBeNull();
      expect(await store.findAppRoot('sub_b', '1600')).toMatchObject({ startedReplies: ['r1'] });
      expect(await store.findAppMonitorPost('sub_b', 'm1')).not.toBeNull();
    });

    it('holds a conversation until the latest time asked, per conversation', async () => {
      expect(await store.appConversationHeldUntil('inst', 'C1')).toBeNull();
      await store.holdAppConversation('inst', 'C1', T0 + 30_000);
      await opened.openAnother().holdAppConversation('inst', 'C1', T0 + 10_000);
      expect(await store.appConversationHeldUntil('inst', 'C1')).toBe(T0 + 30_000);
      await store.holdAppConversation('inst', 'C1', T0 + 60_000);
      expect(await store.appConversationHeldUntil('inst', 'C1')).toBe(T0 + 60_000);
      expect(await store.appConversationHeldUntil('inst', 'C2')).toBeNull();
    });
  });
}
