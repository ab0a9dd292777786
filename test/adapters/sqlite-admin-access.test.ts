/** Admin sessions and the guess throttle in a real SQLite file, seen through two connections as two processes would. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { PER_ADDRESS_GUESSES } from '../../src/core/guess-throttle.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const t0 = Date.UTC(2026, 10, 23, 6);
const session = (id: string, fingerprint = 'fp-a', createdAt = t0) => ({ idHash: id, tokenFingerprint: fingerprint, createdAt, expiresAt: createdAt + 1000 });

describe('sqlite admin access', () => {
  let archive: TempArchive;
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  it('finds a live session of the same token only, and deletes those of another token on sight', async () => {
    const { store } = archive;
    await store.createAdminSession(session('s1'), 100);
    expect(await store.touchAdminSession('s1', 'fp-a', t0 + 999)).toMatchObject({ idHash: 's1', expiresAt: t0 + 1000 });
    expect(await store.touchAdminSession('s1', 'fp-a', t0 + 1000)).toBeNull();
    await store.createAdminSession(session('s2', 'fp-a', t0 + 10), 100);
    expect(await store.touchAdminSession('s2', 'fp-b', t0 + 20)).toBeNull();
    expect(await store.touchAdminSession('s2', 'fp-a', t0 + 20)).toBeNull();
  });

  it('keeps the newest sessions up to the cap, and ends a deleted one', async () => {
    const { store } = archive;
    for (let i = 0; i < 5; i++) await store.createAdminSession(session(`s${i}`, 'fp-a', t0), 3);
    const live = await Promise.all([0, 1, 2, 3, 4].map((i) => store.touchAdminSession(`s${i}`, 'fp-a', t0)));
    expect(live.map((s) => s?.idHash ?? null)).toEqual([null, null, 's2', 's3', 's4']);
    await store.deleteAdminSession('s3');
    expect(await store.touchAdminSession('s3', 'fp-a', t0)).toBeNull();
  });

  it('shares the throttle between processes on the same file', async () => {
    const other = openSqliteArchive(archive.path);
    try {
      const otherStore = createSqliteStore(other.connection);
      const limits = [{ key: 'admin-guess:ip4:192.0.2.1', rule: PER_ADDRESS_GUESSES }];
      for (let i = 0; i < 5; i++) expect((await archive.store.throttleGuess(limits, true, t0)).allowed).toBe(true);
      expect(await otherStore.throttleGuess(limits, false, t0 + 500)).toEqual({ allowed: false, retryAfterMs: 500 });
      expect(await otherStore.throttleGuess(limits, false, t0 + 1000)).toEqual({ allowed: true, writes: [] });
    } finally {
      other.close();
    }
  });
});
