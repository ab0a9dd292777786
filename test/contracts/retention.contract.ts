/**
 * The retention contract (RetentionStore): each prune removes what its rule says, at most `limit`
 * rows a call, and never what /healthz reads (the newest run, the newest success) or the newest
 * rejected body. What went and what stayed is read back through the port.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PollRun, Store } from '../../src/core/ports.ts';
import { sourceLeaseName } from '../../src/core/statuspage/mapping.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { applyPollOf, pollRun, rejectedPayload, subscribe } from './archive-polls.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

/** Calls `prune` with `limit` until a call comes back short, as the pruner does; the count of each call. */
async function inBatches(prune: (limit: number) => Promise<number>, limit: number): Promise<number[]> {
  const counts: number[] = [];
  for (let calls = 0; calls < 100; calls++) {
    const removed = await prune(limit);
    counts.push(removed);
    if (removed < limit) return counts;
  }
  throw new Error('the prune never came back short');
}

export function retentionContract(target: StoreTarget): void {
  describe(`retention (${target.name})`, () => {
    let opened: OpenedStore;
    let store: Store;
    beforeEach(async () => {
      opened = await target.open();
      store = opened.store;
    });
    afterEach(() => opened.close());

    const record = async (...runs: PollRun[]) => {
      for (const run of runs) await store.recordPollRun(run, []);
    };

    describe('poll runs', () => {
      it('drops runs started before the cutoff with what they refused, and keeps the later ones', async () => {
        const old = [pollRun(NOW - 45 * DAY_MS, 'ok'), pollRun(NOW - 40 * DAY_MS, 'failed'), pollRun(NOW - 31 * DAY_MS, 'partial')];
        const recent = [pollRun(NOW - 30 * DAY_MS, 'ok'), pollRun(NOW - 2 * DAY_MS, 'failed'), pollRun(NOW - 60_000, 'ok')];
        for (const run of [...old, ...recent]) await store.recordPollRun(run, run.outcome === 'failed' ? [rejectedPayload('<html>down</html>', 'aa')] : []);

        // The cutoff is exclusive: the run started exactly 30 days ago stays.
        expect(await store.prunePollRuns(NOW - 30 * DAY_MS, 100)).toBe(3);
        for (const run of old) expect(await store.getPollRun(run.id)).toBeNull();
        expect(await store.listPollRuns(null, 100)).toEqual([...recent].reverse());
        // The body both failed runs refused stays for the recent one.
        expect((await store.getPollRun(recent[1]!.id))?.rejected).toMatchObject([{ body: { text: '<html>down</html>', seenCount: 2 } }]);
        expect(await store.prunePollRuns(NOW - 30 * DAY_MS, 100)).toBe(0);
      });

      it('never prunes what /healthz reads: the last success and the last run, however old', async () => {
        // The vendor has been failing for 40 days (a poll a day here, for brevity); 30 days are kept.
        const lastSuccess = pollRun(NOW - 41 * DAY_MS, 'ok');
        await record(pollRun(NOW - 50 * DAY_MS, 'ok'), lastSuccess);
        for (let day = 40; day >= 1; day--) await record(pollRun(NOW - day * DAY_MS, 'failed'));
        const before = await store.feedHealth();

        expect(await store.prunePollRuns(NOW - 30 * DAY_MS, 100)).toBe(11);

        const after = await store.feedHealth();
        expect(after.lastSuccessAt).toBe(lastSuccess.startedAt);
        expect(after.lastRun).toEqual(before.lastRun);
        // Failures older than the retention are no longer counted, but the feed still reads as failing.
        expect(before.consecutiveFailures).toBe(40);
        expect(after.consecutiveFailures).toBe(30);
        expect((await store.listPollRuns(null, 100)).length).toBe(1 + 30);
      });

      it('keeps the newest run and the newest success (partial counts) even when everything is older than the cutoff', async () => {
        const olderSuccess = pollRun(NOW - 60 * DAY_MS, 'ok');
        const newestSuccess = pollRun(NOW - 50 * DAY_MS, 'partial');
        const newestRun = pollRun(NOW - 40 * DAY_MS, 'failed');
        await record(olderSuccess, newestSuccess, newestRun);
        expect(await store.prunePollRuns(NOW, 100)).toBe(1);
        expect(await store.listPollRuns(null, 10)).toEqual([newestRun, newestSuccess]);
        expect(await store.prunePollRuns(NOW, 100)).toBe(0);
        expect(await store.feedHealth()).toEqual({ lastRun: newestRun, lastSuccessAt: newestSuccess.startedAt, consecutiveFailures: 1 });
      });

      it('removes at most the limit a call, oldest first', async () => {
        const runs = [7, 6, 5, 4, 3, 2, 1].map((day) => pollRun(NOW - day * DAY_MS, 'ok'));
        await record(...runs);
        // Five are older than the cutoff; the newest of them is not the newest success (runs[6] is).
        expect(await store.prunePollRuns(NOW - 2 * DAY_MS, 2)).toBe(2);
        expect((await store.listPollRuns(null, 10)).map((r) => r.id)).toEqual(
          runs
            .slice(2)
            .reverse()
            .map((r) => r.id),
        );
        expect(await inBatches((limit) => store.prunePollRuns(NOW - 2 * DAY_MS, limit), 2)).toEqual([2, 1]);
        expect((await store.listPollRuns(null, 10)).map((r) => r.id)).toEqual([runs[6]!.id, runs[5]!.id]);
      });
    });

    describe('rejected bodies', () => {
      it('drops bodies not seen since the cutoff; a run that kept one says it was pruned', async () => {
        const stale = pollRun(NOW - 10 * DAY_MS, 'failed');
        const fresh = pollRun(NOW - 1 * DAY_MS, 'failed');
        await store.recordPollRun(stale, [rejectedPayload('<html>old page</html>', 'bb')]);
        await store.recordPollRun(fresh, [rejectedPayload('<html>new page</html>', 'cc')]);

        expect(await store.pruneRejectedBodies(NOW - 7 * DAY_MS, 50_000_000, 100)).toBe(1);

        expect((await store.getPollRun(stale.id))?.rejected).toEqual([
          {
            source: 'v2/current',
            url: 'http://vendor.test/api/v2/current',
            error: 'invalid JSON',
            sha256: 'bb'.padEnd(64, '0'),
            receivedAt: stale.startedAt,
            body: null,
          },
        ]);
        expect((await store.getPollRun(fresh.id))?.rejected[0]?.body).toMatchObject({ text: '<html>new page</html>', seenCount: 1 });
        expect(await store.pruneRejectedBodies(NOW - 7 * DAY_MS, 50_000_000, 100)).toBe(0);
      });

      it('keeps a body seen again since the cutoff, however long ago it first came', async () => {
        const page = rejectedPayload('<html>maintenance</html>', 'dd');
        const first = pollRun(NOW - 20 * DAY_MS, 'failed');
        await store.recordPollRun(first, [page]);
        await store.recordPollRun(pollRun(NOW - DAY_MS, 'failed'), [page]);
        expect(await store.pruneRejectedBodies(NOW - 7 * DAY_MS, 50_000_000, 100)).toBe(0);
        expect((await store.getPollRun(first.id))?.rejected[0]?.body).toMatchObject({ seenCount: 2, firstSeenAt: first.startedAt });
      });

      it('keeps the most recently seen bodies within the size cap, and always the newest one', async () => {
        const page = (n: number) => `<html>${String(n).repeat(20_000)}</html>`; // about 20 KB each, kept whole
        const runs: PollRun[] = [];
        for (let i = 1; i <= 5; i++) {
          const run = pollRun(NOW - (10 - i) * 60_000, 'failed');
          runs.push(run);
          await store.recordPollRun(run, [rejectedPayload(page(i), `d${i}`)]);
        }
        const kept = async () => {
          const shown = await Promise.all(runs.map((run) => store.getPollRun(run.id)));
          return shown.flatMap((s) => (s?.rejected[0]?.body ? [s.rejected[0].sha256.slice(0, 2)] : []));
        };

        expect(await store.pruneRejectedBodies(NOW - 30 * DAY_MS, 50_000, 100)).toBe(3);
        expect(await kept()).toEqual(['d4', 'd5']);
        expect((await store.getPollRun(runs[4]!.id))?.rejected[0]?.body?.text).toBe(page(5));

        // One body larger than the whole cap is still kept when it is the newest: an admin must see it.
        const huge = pollRun(NOW, 'failed');
        runs.push(huge);
        await store.recordPollRun(huge, [rejectedPayload('x'.repeat(1_500_000), 'ee')]);
        expect(await store.pruneRejectedBodies(NOW - 30 * DAY_MS, 50_000, 100)).toBe(2);
        expect(await kept()).toEqual(['ee']);
        expect(await store.pruneRejectedBodies(NOW - 30 * DAY_MS, 1_000_000, 100)).toBe(0);
      });

      it('holds the size cap as each body is written, not only at the prune, and always keeps the newest', async () => {
        // Five refused pages of about 20 KB each against a 50 KB cap: at no point more than the
        // cap is kept (the newest aside), whether the run is recorded alone or with a poll's writes.
        const capped = opened.openAnother({ rejectedPayloadsMaxBytes: 50_000 });
        const page = (n: number) => `<html>${String(n).repeat(20_000)}</html>`;
        const runs: PollRun[] = [];
        const kept = async () => {
          const shown = await Promise.all(runs.map((run) => capped.getPollRun(run.id)));
          return shown.flatMap((s) => (s?.rejected[0]?.body ? [s.rejected[0].sha256.slice(0, 2)] : []));
        };
        for (let i = 1; i <= 4; i++) {
          const run = pollRun(NOW - (10 - i) * 60_000, 'failed');
          runs.push(run);
          await capped.recordPollRun(run, [rejectedPayload(page(i), `d${i}`)]);
          expect(await kept()).toEqual(['d1', 'd2', 'd3', 'd4'].slice(Math.max(0, i - 2), i));
        }
        const partial = pollRun(NOW, 'partial');
        runs.push(partial);
        await capped.applyPoll({
          run: partial,
          plan: { writes: [], events: [] },
          deliveries: [],
          seenIds: [],
          seenBefore: NOW,
          rejected: [rejectedPayload('x'.repeat(60_000), 'ee', 'v2/history')],
          markSeeded: false,
        });
        expect(await kept()).toEqual(['ee']);
        expect(await capped.pruneRejectedBodies(NOW - 30 * DAY_MS, 50_000, 100)).toBe(0);
      });

      it('removes at most the limit a call, least recently seen first', async () => {
        const runs = [1, 2, 3, 4, 5].map((i) => pollRun(NOW - (20 - i) * DAY_MS, 'failed'));
        for (const [i, run] of runs.entries()) await store.recordPollRun(run, [rejectedPayload(`<html>${i}</html>`, `f${i}`)]);
        expect(await store.pruneRejectedBodies(NOW, 50_000_000, 2)).toBe(2);
        expect(await store.getPollRun(runs[1]!.id)).toMatchObject({ rejected: [{ body: null }] });
        expect((await store.getPollRun(runs[2]!.id))?.rejected[0]?.body).not.toBeNull();
        expect(await inBatches((limit) => store.pruneRejectedBodies(NOW, 50_000_000, limit), 2)).toEqual([2, 1]);
      });
    });

    describe('sign-ups, links and rate limits', () => {
      it('drops pending sign-ups created before the cutoff with no link still valid, and nothing else', async () => {
        const created = NOW - 10 * DAY_MS;
        await subscribe(store, 'pending_dead_link', created);
        await subscribe(store, 'pending_live_link', created);
        await subscribe(store, 'pending_recent', NOW - DAY_MS);
        await subscribe(store, 'active_old', created);
        for (const id of ['pending_dead_link', 'pending_live_link', 'pending_recent']) {
          await store.updateSubscription(id, { status: 'pending' }, created);
        }
        await store.saveToken({ hash: 'h-dead', purpose: 'confirm', expiresAt: NOW - 3 * DAY_MS, subscriptionId: 'pending_dead_link' });
        await store.saveToken({ hash: 'h-live', purpose: 'confirm', expiresAt: NOW + DAY_MS, subscriptionId: 'pending_live_link' });

        expect(await store.prunePendingSignups(NOW - 7 * DAY_MS, NOW, 100)).toBe(1);
        expect(await store.getSubscription('pending_dead_link')).toBeNull();
        for (const id of ['pending_live_link', 'pending_recent', 'active_old']) expect(await store.getSubscription(id), id).not.toBeNull();
        expect(await store.prunePendingSignups(NOW - 7 * DAY_MS, NOW, 100)).toBe(0);
      });

      it('drops group deliveries’ per-member sends recorded before the cutoff, oldest first, in batches', async () => {
        const groups = opened.groups;
        for (let i = 0; i < 5; i++) await groups.recordMemberSends(`msg_old_${i}`, [{ userId: 'U1', state: 'sent' }], NOW - 31 * DAY_MS + i);
        await groups.recordMemberSends(
          'msg_old_0',
          [
            { userId: 'U2', state: 'refused' },
            { userId: 'U3', state: 'sent' },
          ],
          NOW - 31 * DAY_MS,
        );
        // The cutoff is exclusive: sends recorded exactly at it stay, as do later ones.
        await groups.recordMemberSends('msg_at_cutoff', [{ userId: 'U1', state: 'sent' }], NOW - 30 * DAY_MS);
        await groups.recordMemberSends('msg_recent', [{ userId: 'U1', state: 'sent' }], NOW - DAY_MS);
        expect(await inBatches((limit) => store.pruneGroupMemberSends(NOW - 30 * DAY_MS, limit), 3)).toEqual([3, 3, 1]);
        for (let i = 0; i < 5; i++) expect(await groups.hasMemberSends(`msg_old_${i}`)).toBe(false);
        expect(await groups.memberSends('msg_at_cutoff')).toHaveLength(1);
        expect(await groups.memberSends('msg_recent')).toHaveLength(1);
      });

      it('drops pending sign-ups in batches of at most the limit', async () => {
        for (let i = 0; i < 5; i++) {
          await subscribe(store, `pending_${i}`, NOW - (20 - i) * DAY_MS);
          await store.updateSubscription(`pending_${i}`, { status: 'pending' }, NOW - 20 * DAY_MS);
        }
        expect(await inBatches((limit) => store.prunePendingSignups(NOW - 7 * DAY_MS, NOW, limit), 2)).toEqual([2, 2, 1]);
        expect(await store.listSubscriptions({}, null, 10)).toEqual([]);
      });

      it('drops link tokens that expired before the cutoff, in batches', async () => {
        await subscribe(store, 'sub', NOW - 100 * DAY_MS);
        for (let i = 0; i < 5; i++) await store.saveToken({ hash: `old-${i}`, purpose: 'manage', expiresAt: NOW - (40 + i) * DAY_MS, subscriptionId: 'sub' });
        await store.saveToken({ hash: 'at-cutoff', purpose: 'manage', expiresAt: NOW - 30 * DAY_MS, subscriptionId: 'sub' });
        await store.saveToken({ hash: 'live', purpose: 'unsubscribe', expiresAt: NOW + DAY_MS, subscriptionId: 'sub' });

        expect(await inBatches((limit) => store.pruneLinkTokens(NOW - 30 * DAY_MS, limit), 2)).toEqual([2, 2, 1]);
        for (let i = 0; i < 5; i++) expect(await store.findToken(`old-${i}`)).toBeNull();
        expect(await store.findToken('at-cutoff')).toMatchObject({ expiresAt: NOW - 30 * DAY_MS });
        expect(await store.findToken('live')).toMatchObject({ subscriptionId: 'sub' });
      });

      it('drops rate-limit logs whose window ended by the cutoff, in batches, and keeps open ones counting', async () => {
        const rule = { limit: 1, windowMs: 60_000 };
        // 25 logs whose window ended at or before NOW, one still open.
        for (let i = 0; i < 25; i++) expect((await store.hitRateLimit(`ip4:10.0.0.${i}`, rule, NOW - rule.windowMs - i)).allowed).toBe(true);
        expect((await store.hitRateLimit('ip4:10.0.1.1', rule, NOW - rule.windowMs + 1)).allowed).toBe(true);

        expect(await inBatches((limit) => store.pruneRateLimits(NOW, limit), 10)).toEqual([10, 10, 5]);
        // The open window still refuses a second hit: its log was kept.
        expect((await store.hitRateLimit('ip4:10.0.1.1', rule, NOW, { peek: true })).allowed).toBe(false);
        expect(await store.pruneRateLimits(NOW + 1, 10)).toBe(1);
      });

      it('drops the app’s conversation holds that ended by the cutoff, in batches, and keeps the ones still holding', async () => {
        for (let i = 0; i < 25; i++) await store.holdAppConversation('inst', `C${i}`, NOW - i);
        await store.holdAppConversation('inst', 'CLIVE', NOW + 1);
        expect(await inBatches((limit) => store.pruneAppConversationHolds(NOW, limit), 10)).toEqual([10, 10, 5]);
        expect(await store.appConversationHeldUntil('inst', 'C0')).toBeNull();
        expect(await store.appConversationHeldUntil('inst', 'CLIVE')).toBe(NOW + 1);
        // A conversation rate-limited again after its hold went is held anew.
        await store.holdAppConversation('inst', 'C0', NOW + 30_000);
        expect(await store.appConversationHeldUntil('inst', 'C0')).toBe(NOW + 30_000);
        expect(await store.pruneAppConversationHolds(NOW + 1, 10)).toBe(1);
      });

      it('drops the records of chat messages about incidents that ended, untouched since the cutoff, in batches; an incident still going on keeps its record', async () => {
        // The vendor's archive: 25 incidents that ended, one that goes on.
        const ended = Array.from({ length: 25 }, (_, i) => rawIncident({ id: 100 + i, status: 'resolved' }));
        await applyPollOf(store, [...ended, rawIncident({ id: 200, status: 'active' })], NOW - 400 * DAY_MS);
        const message = async (incidentId: string, lastEditAt: number) => {
          expect(await store.beginAppRoot({ subscriptionId: 'sub', incidentId, conversationId: 'C1', key: `d-${incidentId}`, revision: 1 }, lastEditAt)).toBe(
            true,
          );
          await store.recordAppRoot('sub', incidentId, { ts: `1.${incidentId}`, revision: 1, note: null }, lastEditAt);
        };
        for (const [i, raw] of ended.entries()) await message(String(raw.id), NOW - (200 + i) * DAY_MS);
        // Ended, but its message was edited within the kept time; and the long incident's message.
        await applyPollOf(store, [rawIncident({ id: 300, status: 'resolved' })], NOW - 20 * DAY_MS);
        await message('300', NOW - 20 * DAY_MS);
        await message('200', NOW - 300 * DAY_MS);
        // An incident no longer archived (its source was removed with its archive) is going on no more.
        await message('src_gone:1', NOW - 200 * DAY_MS);

        expect(await inBatches((limit) => store.pruneIncidentMessages(NOW - 180 * DAY_MS, limit), 10)).toEqual([10, 10, 6]);
        expect(await store.findAppRoot('sub', 'src_gone:1')).toBeNull();
        for (const raw of ended) expect(await store.findAppRoot('sub', String(raw.id))).toBeNull();
        expect(await store.findAppRoot('sub', '300')).toMatchObject({ rootTs: '1.300' });
        expect(await store.findAppRoot('sub', '200')).toMatchObject({ rootTs: '1.200' });
      });
    });

    describe("sources' blind spells", () => {
      it('drops the spells that ended before the cutoff, oldest first, in batches; a later one stays, whenever it began', async () => {
        const never = { validators: {}, lastFailureAt: null, lastError: null, consecutiveFailures: 0, blindSince: null, blindToldAt: null };
        for (const n of [1, 2])
          await store.addSource(
            { id: `src_${n}`, kind: 'statuspage', name: `Vendor ${n}`, url: `https://s${n}.example.com`, createdAt: NOW - 500 * DAY_MS },
            10,
          );
        // Two pages' spells of an hour each, ended 420 to 431 days ago; one long spell ended 399 days ago.
        for (let i = 0; i < 12; i++) {
          const until = NOW - (420 + i) * DAY_MS;
          await store.savePollState(`src_${(i % 2) + 1}`, { ...never, lastSuccessAt: until }, { since: until - 3_600_000, until });
        }
        await store.savePollState('src_1', { ...never, lastSuccessAt: NOW - 399 * DAY_MS }, { since: NOW - 450 * DAY_MS, until: NOW - 399 * DAY_MS });

        expect(await inBatches((limit) => store.pruneBlindSpells(NOW - 400 * DAY_MS, limit), 5)).toEqual([5, 5, 2]);
        expect(await store.blindSpells('src_1', 0)).toEqual([{ since: NOW - 450 * DAY_MS, until: NOW - 399 * DAY_MS }]);
        expect(await store.blindSpells('src_2', 0)).toEqual([]);
      });
    });

    describe("sources' poll leases", () => {
      it("drops the poll leases of sources not watched, held or expired, in batches; the main feed's and a watched source's stay", async () => {
        for (const n of [1, 2, 3])
          await store.addSource({ id: `src_${n}`, kind: 'statuspage', name: `Vendor ${n}`, url: `https://s${n}.example.com`, createdAt: NOW }, 10);
        // Polls killed holding their leases: of a watched page, of one removed and one purging
        // since (taken again after the removal), and of pages that were never there.
        expect(await store.removeSource('src_2')).toBe(true);
        expect(await store.beginSourcePurge('src_3', NOW)).toBe(true);
        const left = ['src_1', 'src_2', 'src_3', 'src_a', 'src_b', 'src_c', 'src_d'];
        for (const id of left) expect(await store.tryAcquireLease(sourceLeaseName(id), 'killed', NOW - (id === 'src_a' ? 0 : DAY_MS), 60_000)).toBe(true);
        expect(await store.tryAcquireLease('poll', 'killed', NOW - DAY_MS, 60_000)).toBe(true);

        expect(await inBatches((limit) => store.pruneSourceLeases(limit), 4)).toEqual([4, 2]);
        expect(await store.leaseHolder('poll')).toBe('killed');
        expect(await store.leaseHolder(sourceLeaseName('src_1'))).toBe('killed');
        for (const id of left.slice(1)) expect(await store.leaseHolder(sourceLeaseName(id))).toBeNull();
      });
    });
  });
}
