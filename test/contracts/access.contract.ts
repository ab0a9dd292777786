/**
 * The access contract: admin sessions, the admin-token guess throttle, and the sign-up rate limit.
 * The two limiters keep their logs in the database so that every process or isolate shares them;
 * what must hold is what an attacker tries: many requests at once, from several stores, never let
 * more through than the rule allows.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_ADDRESSES_GUESSES, PER_ADDRESS_GUESSES, type GuessLimit } from '../../src/core/guess-throttle.ts';
import type { AdminSessionRecord, Store } from '../../src/core/ports.ts';
import type { LimitRule } from '../../src/core/rate-limit.ts';
import type { OpenedStore, StoreTarget } from './store-target.ts';

const T0 = Date.UTC(2026, 10, 23, 6);
const SESSION_MS = 12 * 3600_000;
const session = (id: string, fingerprint = 'fp-a', createdAt = T0): AdminSessionRecord => ({
  idHash: id,
  tokenFingerprint: fingerprint,
  createdAt,
  expiresAt: createdAt + SESSION_MS,
});

const ADDRESS = [{ key: 'admin-guess:ip4:192.0.2.1', rule: PER_ADDRESS_GUESSES }] satisfies GuessLimit[];
const SIGNUPS: LimitRule = { limit: 5, windowMs: 10 * 60_000 };

/** Every limiter log in the database, counted by the port that prunes them (all of them, here). */
const limiterLogs = (store: Store) => store.pruneRateLimits(Number.MAX_SAFE_INTEGER, 100_000);

export function accessContract(target: StoreTarget): void {
  describe(`access (${target.name})`, () => {
    let opened: OpenedStore;
    beforeEach(async () => {
      opened = await target.open();
    });
    afterEach(() => opened.close());

    describe('admin sessions', () => {
      it('finds a live session made with the same token, from another store, until it expires', async () => {
        const { store } = opened;
        const other = opened.openAnother();
        await store.createAdminSession(session('s1'), 100);
        expect(await other.touchAdminSession('s1', 'fp-a', T0 + SESSION_MS - 1)).toEqual(session('s1'));
        expect(await other.touchAdminSession('s1', 'fp-a', T0 + SESSION_MS)).toBeNull();
        expect(await other.touchAdminSession('s-unknown', 'fp-a', T0)).toBeNull();
      });

      it('ends every session of the old token once a new ADMIN_TOKEN is in use', async () => {
        const { store } = opened;
        await store.createAdminSession(session('old-1'), 100);
        await store.createAdminSession(session('old-2'), 100);
        // A request carrying the old cookie under the new token: refused, and the old ones go.
        expect(await store.touchAdminSession('old-1', 'fp-b', T0 + 1)).toBeNull();
        expect(await store.touchAdminSession('old-2', 'fp-a', T0 + 2)).toBeNull();
        await store.createAdminSession(session('old-3'), 100);
        expect(await store.touchAdminSession('old-3', 'fp-a', T0 + 3)).toMatchObject({ idHash: 'old-3' });
        // Signing in with the new token ends the old token's sessions too (the old cookie is
        // presented with the old fingerprint, so only that sign-in can have removed it).
        await opened.openAnother().createAdminSession(session('new-1', 'fp-b', T0 + 4), 100);
        expect(await store.touchAdminSession('old-3', 'fp-a', T0 + 5)).toBeNull();
      });

      it('keeps only the newest sessions up to maxLive, the newest always, and ends a deleted one everywhere', async () => {
        const { store } = opened;
        const other = opened.openAnother();
        // Created in the same millisecond: arrival decides which are newest.
        for (let i = 0; i < 5; i++) await (i % 2 ? other : store).createAdminSession(session(`s${i}`), 3);
        const live = async () =>
          (await Promise.all([0, 1, 2, 3, 4].map((i) => store.touchAdminSession(`s${i}`, 'fp-a', T0 + 1)))).map((s) => s?.idHash ?? null);
        expect(await live()).toEqual([null, null, 's2', 's3', 's4']);
        await store.createAdminSession(session('s5', 'fp-a', T0 + 2), 1);
        expect(await other.touchAdminSession('s5', 'fp-a', T0 + 3)).toMatchObject({ idHash: 's5' });
        expect(await live()).toEqual([null, null, null, null, null]);
        await other.deleteAdminSession('s5');
        expect(await store.touchAdminSession('s5', 'fp-a', T0 + 4)).toBeNull();
      });
    });

    describe('admin-token guess throttle', () => {
      it('shares one log between stores: five wrong guesses are free, then the wait is told', async () => {
        const { store } = opened;
        const other = opened.openAnother();
        for (let i = 0; i < 5; i++) expect((await (i % 2 ? other : store).throttleGuess(ADDRESS, true, T0)).allowed).toBe(true);
        expect(await other.throttleGuess(ADDRESS, false, T0 + 500)).toEqual({ allowed: false, retryAfterMs: 500 });
        // A refused guess lengthens nothing; the right token gets in as soon as the wait is over.
        expect(await store.throttleGuess(ADDRESS, true, T0 + 999)).toEqual({ allowed: false, retryAfterMs: 1 });
        expect(await other.throttleGuess(ADDRESS, false, T0 + 1000)).toEqual({ allowed: true, writes: [] });
      });

      it('never counts right guesses', async () => {
        const { store } = opened;
        for (let i = 0; i < 4; i++) expect((await store.throttleGuess(ADDRESS, true, T0)).allowed).toBe(true);
        for (let i = 0; i < 20; i++) expect(await store.throttleGuess(ADDRESS, false, T0)).toEqual({ allowed: true, writes: [] });
        expect((await store.throttleGuess(ADDRESS, true, T0)).allowed).toBe(true);
        expect(await store.throttleGuess(ADDRESS, false, T0)).toEqual({ allowed: false, retryAfterMs: 1000 });
      });

      it('lets no more than the free failures through a flood of wrong guesses from three stores at once, and loses none', async () => {
        const stores = [opened.store, opened.openAnother(), opened.openAnother()];
        const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.throttleGuess(ADDRESS, true, T0)));
        const letThrough = flood.filter((d) => d.allowed).length;
        expect(letThrough).toBeGreaterThan(0);
        expect(letThrough).toBeLessThanOrEqual(PER_ADDRESS_GUESSES.freeFailures);
        // Every guess let through is on the log: one by one, only the rest of the free ones pass.
        let after = 0;
        while (after <= PER_ADDRESS_GUESSES.freeFailures && (await opened.store.throttleGuess(ADDRESS, true, T0)).allowed) after++;
        expect(letThrough + after).toBe(PER_ADDRESS_GUESSES.freeFailures);
      });

      it('keeps one log per address whose wrong guess was checked, plus the global one, under a flood from many addresses', async () => {
        const stores = [opened.store, opened.openAnother(), opened.openAnother()];
        const guess = (i: number) =>
          stores[i % 3]!.throttleGuess(
            [
              { key: `admin-guess:ip6:2001:db8:${i.toString(16)}::/64`, rule: PER_ADDRESS_GUESSES },
              { key: 'admin-guess:all', rule: ALL_ADDRESSES_GUESSES },
            ],
            true,
            T0,
          );
        const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => guess(i)));
        const checked = decisions.filter((d) => d.allowed).length;
        expect(checked).toBeGreaterThan(0);
        expect(checked).toBeLessThanOrEqual(ALL_ADDRESSES_GUESSES.freeFailures);
        expect(await limiterLogs(opened.store)).toBe(checked + 1);
      });
    });

    describe('the limiter logs themselves', () => {
      it('stay bounded under a flood of new addresses, the least recently written going first, whichever limiter writes them', async () => {
        await opened.close();
        opened = await target.open({ rateLimitRowsMax: 40 });
        const stores = [opened.store, opened.openAnother(), opened.openAnother()];
        // 150 sign-ups and 90 wrong admin tokens, each from a new address: a row each without the bound.
        await Promise.all(Array.from({ length: 150 }, (_, i) => stores[i % 3]!.hitRateLimit(`ip4:10.0.${i >> 8}.${i & 255}`, SIGNUPS, T0 + i)));
        const guesses = Array.from({ length: 90 }, (_, i) => [{ key: `admin-guess:ip4:10.1.0.${i}`, rule: PER_ADDRESS_GUESSES }] satisfies GuessLimit[]);
        for (const [i, guess] of guesses.entries()) await stores[i % 3]!.throttleGuess(guess, true, T0 + 200 + i);
        // An address still sending keeps its log: the limit still holds for it.
        const recent = 'ip4:192.0.2.77';
        for (let i = 0; i < SIGNUPS.limit; i++) expect((await opened.store.hitRateLimit(recent, SIGNUPS, T0 + 300 + i)).allowed).toBe(true);
        expect((await opened.store.hitRateLimit(recent, SIGNUPS, T0 + 400)).allowed).toBe(false);
        expect(await limiterLogs(opened.store)).toBeLessThanOrEqual(40);
      });
    });

    describe('sign-up rate limit', () => {
      it('lets exactly the limit through 20 simultaneous hits from three stores', async () => {
        const stores = [opened.store, opened.openAnother(), opened.openAnother()];
        const hits = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 3]!.hitRateLimit('ip4:198.51.100.7', SIGNUPS, T0)));
        expect(hits.filter((d) => d.allowed)).toHaveLength(SIGNUPS.limit);
        expect(hits.filter((d) => !d.allowed).every((d) => d.retryAfterMs > 0)).toBe(true);
        expect((await opened.store.hitRateLimit('ip4:198.51.100.7', SIGNUPS, T0 + 1)).allowed).toBe(false);
      });

      it('records nothing when it only peeks', async () => {
        const { store } = opened;
        const key = 'rcpt:ops@example.test';
        for (let i = 0; i < 10; i++) expect(await store.hitRateLimit(key, SIGNUPS, T0, { peek: true })).toMatchObject({ allowed: true, retryAfterMs: 0 });
        for (let i = 0; i < SIGNUPS.limit; i++) expect((await store.hitRateLimit(key, SIGNUPS, T0 + i)).allowed).toBe(true);
        expect(await store.hitRateLimit(key, SIGNUPS, T0 + 10, { peek: true })).toMatchObject({ allowed: false, retryAfterMs: SIGNUPS.windowMs - 10 });
        // The oldest hit leaves the window on time: peeking in between did not count as a hit.
        expect((await store.hitRateLimit(key, SIGNUPS, T0 + SIGNUPS.windowMs)).allowed).toBe(true);
      });

      it('counts each key on its own, forgets hits as the window slides, and refused hits never count', async () => {
        const { store } = opened;
        const other = opened.openAnother();
        for (let i = 0; i < SIGNUPS.limit; i++) await store.hitRateLimit('ip4:192.0.2.1', SIGNUPS, T0 + i * 1000);
        expect((await other.hitRateLimit('ip4:192.0.2.2', SIGNUPS, T0 + 5000)).allowed).toBe(true);
        for (let i = 0; i < 10; i++) expect((await other.hitRateLimit('ip4:192.0.2.1', SIGNUPS, T0 + 5000 + i)).allowed).toBe(false);
        expect(await other.hitRateLimit('ip4:192.0.2.1', SIGNUPS, T0 + SIGNUPS.windowMs - 1)).toMatchObject({ allowed: false, retryAfterMs: 1 });
        expect((await store.hitRateLimit('ip4:192.0.2.1', SIGNUPS, T0 + SIGNUPS.windowMs)).allowed).toBe(true);
        expect((await store.hitRateLimit('ip4:192.0.2.1', SIGNUPS, T0 + SIGNUPS.windowMs)).allowed).toBe(false);
        expect(await limiterLogs(store)).toBe(2);
      });
    });
  });
}
