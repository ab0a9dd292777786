/** The last-seen refresh rule shared by the main feed's poller and the sources' poller. */
import { describe, expect, it } from 'vitest';
import { createKeptRefreshes, LAST_SEEN_PRECISION_MS, lastSeenRefresh } from '../../src/app/last-seen.ts';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

describe('last-seen refresh', () => {
  it('skips within half the precision of a refresh that covered every incident seen, and refreshes all of them otherwise', () => {
    const kept = { refreshedAtMs: NOW - 60_000, covers: (id: string) => id === 'a' || id === 'b' };
    expect(lastSeenRefresh(kept, ['a', 'b'], NOW)).toEqual({ ids: [], seenBefore: NOW - LAST_SEEN_PRECISION_MS / 2, refreshedAtMs: NOW - 60_000 });
    expect(lastSeenRefresh(kept, ['a', 'c'], NOW).ids).toEqual(['a', 'c']);
    expect(lastSeenRefresh({ ...kept, refreshedAtMs: NOW - LAST_SEEN_PRECISION_MS / 2 }, ['a'], NOW)).toMatchObject({ ids: ['a'], refreshedAtMs: NOW });
    // A refresh "in the future" (a clock set back) is no proof of anything.
    expect(lastSeenRefresh({ ...kept, refreshedAtMs: NOW + 1 }, ['a'], NOW).ids).toEqual(['a']);
    expect(lastSeenRefresh(null, ['a'], NOW).ids).toEqual(['a']);
  });

  it('keeps the last refresh of at most so many sources, forgetting the least recently refreshed', () => {
    const refreshes = createKeptRefreshes(2);
    refreshes.remember('s1', NOW, ['s1:a']);
    refreshes.remember('s2', NOW, ['s2:a']);
    refreshes.remember('s1', NOW + 1, ['s1:a', 's1:b']);
    refreshes.remember('s3', NOW, ['s3:a']);
    expect(refreshes.get('s2')).toBeNull();
    expect(refreshes.get('s1')?.refreshedAtMs).toBe(NOW + 1);
    expect(refreshes.get('s1')?.covers('s1:b')).toBe(true);
    expect(refreshes.get('s3')?.covers('s1:a')).toBe(false);
  });
});
