/**
 * How a poll keeps last_seen_at fresh for the incidents the feed shows. The refresh is a statement
 * that seeks every seen incident (120 index seeks for a usual history, the largest of a changed
 * poll's writes); a diff made soon after the last refresh, of incidents that refresh covered,
 * skips it and still keeps the precision below.
 */
import type { DiffedFeed, LastDiff } from '../core/ports.ts';

/**
 * How fresh last_seen_at is kept. Unchanged bodies skip the diff, but not for longer than this
 * after the last refresh; and a diff rewrites last_seen_at only where it is older than half of
 * it, so a change to one incident does not rewrite every other incident in the feed.
 */
export const LAST_SEEN_PRECISION_MS = 10 * 60_000;
/**
 * A refresh leaves every seen incident's last_seen_at within this of its time, and the diffs for
 * this long after it skip the refresh: last_seen_at is never older than the precision at a diff.
 */
const REFRESH_WINDOW_MS = LAST_SEEN_PRECISION_MS / 2;

/**
 * What a full diff refreshes: `ids` whose last_seen_at is older than `seenBefore` are set to now
 * (none: skipped), and `refreshedAtMs` says when a refresh last covered every incident seen.
 */
export type LastSeenRefresh = { ids: readonly string[]; seenBefore: number; refreshedAtMs: number };

/**
 * What a poller knows of its last refresh: when it was, and whether it covered an incident. Each
 * poller keeps it its own way (the main feed's with the kept DiffedFeed, a source's in memory);
 * the rule below is the same for both.
 */
export type KeptRefresh = { refreshedAtMs: number; covers(id: string): boolean };

/**
 * Skipped when the last refresh is less than REFRESH_WINDOW_MS old and covered every incident
 * seen now: each of them then has a last_seen_at within the precision of now (last_seen_at only
 * grows; a new incident is written with it). Else every seen incident older than the window is
 * refreshed, and the refresh is now.
 */
export function lastSeenRefresh(kept: KeptRefresh | null, seenIds: readonly string[], now: number): LastSeenRefresh {
  const seenBefore = now - REFRESH_WINDOW_MS;
  const fresh = kept !== null && kept.refreshedAtMs <= now && kept.refreshedAtMs > seenBefore && seenIds.every((id) => kept.covers(id));
  return fresh ? { ids: [], seenBefore, refreshedAtMs: kept.refreshedAtMs } : { ids: seenIds, seenBefore, refreshedAtMs: now };
}

/**
 * The main feed's last refresh, as the kept DiffedFeed records it: trusted while no process has
 * written the main feed's incidents since (its generation is the archive's); it covered the
 * incidents whose digests it keeps.
 */
export function keptMainFeedRefresh({ diffed, generation }: LastDiff): KeptRefresh | null {
  if (diffed === null || diffed.seenRefreshedAtMs === undefined || diffed.generation !== generation || !diffed.incidents) return null;
  const { incidents } = diffed;
  return { refreshedAtMs: diffed.seenRefreshedAtMs, covers: (id) => Object.hasOwn(incidents, id) };
}

/** When last_seen_at was last refreshed for the kept feed: its diff's time for a feed kept before refreshes were. */
export function lastRefreshOf(diffed: DiffedFeed): number {
  return diffed.seenRefreshedAtMs ?? diffed.atMs;
}

/**
 * Sources whose last refresh a source poller keeps, at most: past this, the least recently
 * refreshed is forgotten and its next diff refreshes (as every diff of it did before). Ten times
 * SOURCES_MAX's default; each entry holds the ids one page showed.
 */
export const KEPT_SOURCE_REFRESHES_MAX = 1000;

/** Each source's last refresh, in this process's memory: a poller made for one invocation starts with none. */
export type KeptRefreshes = {
  get(sourceId: string): KeptRefresh | null;
  /** A refresh at `refreshedAtMs` covered `ids`. */
  remember(sourceId: string, refreshedAtMs: number, ids: readonly string[]): void;
};

export function createKeptRefreshes(max = KEPT_SOURCE_REFRESHES_MAX): KeptRefreshes {
  const kept = new Map<string, { refreshedAtMs: number; ids: ReadonlySet<string> }>();
  return {
    get(sourceId) {
      const entry = kept.get(sourceId);
      if (!entry) return null;
      return { refreshedAtMs: entry.refreshedAtMs, covers: (id) => entry.ids.has(id) };
    },
    remember(sourceId, refreshedAtMs, ids) {
      // Map order is insertion order: the first key is the least recently refreshed.
      kept.delete(sourceId);
      if (kept.size >= max) kept.delete(kept.keys().next().value as string);
      kept.set(sourceId, { refreshedAtMs, ids: new Set(ids) });
    },
  };
}
