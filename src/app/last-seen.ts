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
 * (none: skipped), and `refreshedAtMs`, kept with the DiffedFeed, says when a refresh last covered
 * every incident it keeps.
 */
export type LastSeenRefresh = { ids: readonly string[]; seenBefore: number; refreshedAtMs: number };

/**
 * Skipped when the kept DiffedFeed's refresh is less than REFRESH_WINDOW_MS old, no process has
 * written the main feed's incidents since (its generation is the archive's), and every incident
 * seen now was kept by it: each of them then has a last_seen_at within the precision of now
 * (last_seen_at only grows; a new incident is written with it).
 */
export function lastSeenRefresh(lastDiff: LastDiff, seenIds: readonly string[], now: number): LastSeenRefresh {
  const seenBefore = now - REFRESH_WINDOW_MS;
  const kept = lastDiff.diffed;
  const refreshedAtMs = kept?.seenRefreshedAtMs;
  const fresh =
    kept !== null &&
    refreshedAtMs !== undefined &&
    kept.generation === lastDiff.generation &&
    refreshedAtMs <= now &&
    refreshedAtMs > seenBefore &&
    keepsAll(kept, seenIds);
  return fresh ? { ids: [], seenBefore, refreshedAtMs } : { ids: seenIds, seenBefore, refreshedAtMs: now };
}

/** When last_seen_at was last refreshed for the kept feed: its diff's time for a feed kept before refreshes were. */
export function lastRefreshOf(diffed: DiffedFeed): number {
  return diffed.seenRefreshedAtMs ?? diffed.atMs;
}

function keepsAll({ incidents }: DiffedFeed, ids: readonly string[]): boolean {
  if (!incidents) return false;
  for (const id of ids) if (!Object.hasOwn(incidents, id)) return false;
  return true;
}
