/**
 * The app message store's contract (issue 10): one process wins the right to post an incident's
 * root, a stalled post is taken over once, the root's revision only rises and an older one keeps
 * the newer note, started replies are remembered within their bound, and a conversation's hold
 * only ever grows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NoteRef } from '../../src/core/events.ts';
import type { Store } from '../../src/core/ports.ts';
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
