/**
 * Which stretches of time the archive can speak for: none before it began, none while
 * the feed could not be read. The daily bars draw such days as "no data" and availability leaves
 * them out, instead of counting them as days without an incident.
 */
import { assessKnowledge, STALE_AFTER_MS } from './knowledge.ts';

/** [start, end) in epoch ms. */
export type Interval = [start: number, end: number];

export type DataCoverage = {
  /**
   * The earliest instant the archive speaks for: its oldest incident's start (the vendor's history
   * reaches back that far at least), or when it was seeded if it holds none; null while the feed
   * was never read.
   */
  beganAt: number | null;
  /** Recorded blind episodes (monitor events): from the last good read to the read that ended it, or null while it lasts. */
  blind: { since: number; until: number | null }[];
};

/**
 * The no-data intervals up to `nowMs`, merged and sorted. `lastSuccessAt` (feedHealth) adds the
 * blindness going on now, which may not be recorded yet (within the quiet time).
 */
export function noDataIntervals(coverage: DataCoverage, lastSuccessAt: number | null, nowMs: number, staleAfterMs = STALE_AFTER_MS): Interval[] {
  const intervals: Interval[] = [[Number.NEGATIVE_INFINITY, coverage.beganAt ?? nowMs]];
  for (const { since, until } of coverage.blind) intervals.push([since, until ?? nowMs]);
  const knowledge = assessKnowledge({ lastSuccessAt, now: nowMs, staleAfterMs });
  if (knowledge.kind === 'stale') intervals.push([knowledge.since, nowMs]);
  return mergeIntervals(intervals.filter(([start, end]) => end > start));
}

/**
 * The blind spell a good read at `readAt` ends: from the last good read before it (or when the
 * source was added, never read) when that was the staleness limit ago or more, the time every
 * face showed the source as unknown; null when it was read within the limit. Whether the reads
 * between failed or none was tried (the process was down) is the same: nothing was known. The
 * one rule for the main feed (the poller) and every watched page (the source poller) alike; the
 * stores only write what it decided.
 */
export function blindSpellEndedBy(lastReadAt: number, readAt: number, staleAfterMs = STALE_AFTER_MS): { since: number; until: number } | null {
  return readAt - lastReadAt >= staleAfterMs ? { since: lastReadAt, until: readAt } : null;
}

export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const merged: Interval[] = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** How much of [start, end) the merged `intervals` cover. */
export function coveredMs(start: number, end: number, intervals: readonly Interval[]): number {
  let total = 0;
  for (const [a, b] of intervals) {
    const from = Math.max(a, start);
    const to = Math.min(b, end);
    if (to > from) total += to - from;
  }
  return total;
}

/** The parts of `intervals` outside the merged `holes`. */
export function subtractIntervals(intervals: readonly Interval[], holes: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [start, end] of intervals) {
    let cursor = start;
    for (const [a, b] of holes) {
      if (b <= cursor || a >= end) continue;
      if (a > cursor) out.push([cursor, a]);
      cursor = Math.max(cursor, b);
      if (cursor >= end) break;
    }
    if (cursor < end) out.push([cursor, end]);
  }
  return out;
}
