/** The vendor's track record from the archive: availability per service, and monthly incident figures. */
import { coveredMs, subtractIntervals, type Interval as CoverageInterval } from './coverage.ts';
import type { IncidentSpan } from './ports.ts';
import { DAY_MS, severityOf, VENDOR_SERVICES } from './service-days.ts';

/**
 * How much of an hour of partial outage counts as down. Atlassian Statuspage, which most status
 * pages run on, counts a partial outage at 30% of a major one in its uptime figure; we follow it so
 * our numbers read like the ones people are used to. A vendor `outage` counts in full, an
 * `incident` at this weight, a `notice` not at all.
 */
export const PARTIAL_OUTAGE_WEIGHT = 0.3;

/**
 * Rounded down to three decimals: a service that was down at all never reads 100%. A ratio like
 * 1 - 4/5 is 0.19999999999999996 in floating point, so the cut first forgives an error far below
 * the last decimal shown: an exact 20% reads "20.000%", not "19.999%".
 */
export function percentFloor(ratio: number): number {
  const thousandths = Math.floor(ratio * 100_000 + FLOATING_POINT_SLACK);
  return (ratio < 1 ? Math.min(thousandths, 99_999) : thousandths) / 1000;
}

/**
 * In thousandths of a percent: a ratio's floating-point error is near 1e-11 of these, a millisecond
 * down in 90 days 1.3e-5 of them (and a ratio under 1 is capped at 99.999% besides).
 */
const FLOATING_POINT_SLACK = 1e-6;

/** Availability as every face writes it: "99.950%", "100%", or "no data" when none of the window was seen. */
export function percentText(ratio: number | null): string {
  if (ratio === null) return 'no data';
  return ratio === 1 ? '100%' : `${percentFloor(ratio).toFixed(3)}%`;
}

/** Availability is given over these rolling windows, ending now. */
export const AVAILABILITY_WINDOWS_DAYS: readonly number[] = [30, 90];

/** Monthly figures cover this many UTC calendar months, the current one included. */
export const REPORT_MONTHS = 12;

export type WindowAvailability = {
  days: number;
  startMs: number;
  endMs: number;
  /**
   * 1 minus the weighted downtime over the time the archive can speak for (`observedMs`): 1 is
   * never down; null when it can speak for none of the window (before it began, or blind).
   */
  availability: number | null;
  /** The window's length less its no-data time (coverage.ts). */
  observedMs: number;
  /** Time under an outage. */
  outageMs: number;
  /** Time under an incident but no outage. */
  partialMs: number;
  /** outageMs + PARTIAL_OUTAGE_WEIGHT × partialMs. */
  downtimeMs: number;
  /** Incidents of any type that went on during the window. */
  incidents: number;
};

export type ServiceAvailability = { service: string; windows: WindowAvailability[] };

/** Of the incidents that have the figure; null figures when none has. */
export type Distribution = { count: number; medianMs: number | null; p90Ms: number | null };

export type IncidentCounts = { total: number; outage: number; incident: number; notice: number; other: number };

export type MonthFigures = {
  /** YYYY-MM, UTC. Incidents belong to the month of their date_created. */
  month: string;
  startMs: number;
  endMs: number;
  /**
   * The time of the month, up to now, the archive can speak for (coverage.ts): 0 for a month before
   * it began or never read; its figures are then "no data", not zero incidents.
   */
  observedMs: number;
  incidents: IncidentCounts;
  /** resolvedAt − createdAt of the month's resolved incidents; `ongoing` are not in it yet. */
  timeToResolve: Distribution & { ongoing: number };
  /** firstNoteAt − createdAt: the vendor's first update after its opening note. */
  timeToFirstUpdate: Distribution;
  /** firstSeenAt − createdAt, backfill excluded: how long the vendor's feed took to reach us. */
  detectionLag: Distribution;
};

export type Reliability = {
  nowMs: number;
  partialOutageWeight: number;
  services: ServiceAvailability[];
  /** Oldest first. */
  months: MonthFigures[];
};

export type ReliabilityOptions = {
  nowMs: number;
  /** Merged no-data intervals (coverage.ts noDataIntervals): left out of availability, downtime included. */
  noData?: readonly CoverageInterval[];
  /** The rows always shown; default VENDOR_SERVICES. Others seen in the longest window follow, sorted. */
  services?: readonly string[];
};

/** The earliest instant computeReliability looks at: what to ask incidentSpans for. */
export function reliabilitySince(nowMs: number): number {
  return Math.min(nowMs - Math.max(...AVAILABILITY_WINDOWS_DAYS) * DAY_MS, monthStarts(nowMs)[0]!);
}

/**
 * `spans` must hold every incident going on since reliabilitySince(nowMs) (incidentSpans gives
 * exactly that). Incidents that name no service count in the monthly figures but in no service's
 * availability: nothing says which service they took down.
 */
export function computeReliability(spans: readonly IncidentSpan[], options: ReliabilityOptions): Reliability {
  const { nowMs } = options;
  const known = options.services ?? VENDOR_SERVICES;
  const longest = Math.max(...AVAILABILITY_WINDOWS_DAYS) * DAY_MS;
  const byService = new Map<string, IncidentSpan[]>();
  for (const span of spans) {
    for (const service of new Set(span.services)) {
      const list = byService.get(service) ?? [];
      list.push(span);
      byService.set(service, list);
    }
  }
  const knownSet = new Set(known);
  const others = [...byService.entries()]
    .filter(([service, list]) => !knownSet.has(service) && list.some((s) => overlaps(s, nowMs - longest, nowMs, nowMs)))
    .map(([service]) => service)
    .sort();
  const services = [...known, ...others].map((service) => ({
    service,
    windows: AVAILABILITY_WINDOWS_DAYS.map((days) => windowAvailability(byService.get(service) ?? [], days, nowMs, options.noData ?? [])),
  }));

  const starts = monthStarts(nowMs);
  const ends = starts.map((startMs, i) => starts[i + 1] ?? nextMonthStart(startMs));
  const byMonth = starts.map((): IncidentSpan[] => []);
  for (const span of spans) {
    const i = ends.findIndex((endMs) => span.createdAt < endMs);
    if (i >= 0 && span.createdAt >= starts[i]!) byMonth[i]!.push(span);
  }
  const months = starts.map((startMs, i) => monthFigures(byMonth[i]!, startMs, ends[i]!, nowMs, options.noData ?? []));

  return { nowMs, partialOutageWeight: PARTIAL_OUTAGE_WEIGHT, services, months };
}

function windowAvailability(spans: readonly IncidentSpan[], days: number, nowMs: number, noData: readonly CoverageInterval[]): WindowAvailability {
  const endMs = nowMs;
  const startMs = nowMs - days * DAY_MS;
  const outage: Interval[] = [];
  const down: Interval[] = [];
  let incidents = 0;
  for (const span of spans) {
    if (!overlaps(span, startMs, endMs, nowMs)) continue;
    incidents++;
    const severity = severityOf(span.type);
    if (severity === 'notice') continue;
    // Ongoing incidents count until now; the window cuts the rest.
    const interval: Interval = [Math.max(span.createdAt, startMs), Math.min(span.resolvedAt ?? nowMs, endMs)];
    if (interval[1] <= interval[0]) continue;
    down.push(interval);
    if (severity === 'outage') outage.push(interval);
  }
  // Overlapping incidents are merged so no instant counts twice, and an instant under both an
  // outage and an incident counts as outage only. Time without data counts neither way: an
  // outage we last knew of is not assumed to go on while we cannot see.
  const outageMs = unionLength(subtractIntervals(outage, noData));
  const partialMs = unionLength(subtractIntervals(down, noData)) - outageMs;
  const downtimeMs = outageMs + PARTIAL_OUTAGE_WEIGHT * partialMs;
  const observedMs = endMs - startMs - coveredMs(startMs, endMs, noData);
  const availability = observedMs > 0 ? 1 - downtimeMs / observedMs : null;
  return { days, startMs, endMs, availability, observedMs, outageMs, partialMs, downtimeMs, incidents };
}

function monthFigures(spans: readonly IncidentSpan[], startMs: number, endMs: number, nowMs: number, noData: readonly CoverageInterval[]): MonthFigures {
  const seenEndMs = Math.max(startMs, Math.min(endMs, nowMs));
  const incidents: IncidentCounts = { total: spans.length, outage: 0, incident: 0, notice: 0, other: 0 };
  for (const span of spans) {
    const type = span.type === 'outage' || span.type === 'incident' || span.type === 'notice' ? span.type : 'other';
    incidents[type]++;
  }
  const resolved = spans.filter((s) => s.resolvedAt !== null);
  return {
    month: new Date(startMs).toISOString().slice(0, 7),
    startMs,
    endMs,
    observedMs: seenEndMs - startMs - coveredMs(startMs, seenEndMs, noData),
    incidents,
    timeToResolve: { ...distribution(resolved.map((s) => s.resolvedAt! - s.createdAt)), ongoing: spans.length - resolved.length },
    timeToFirstUpdate: distribution(spans.filter((s) => s.firstNoteAt !== null).map((s) => s.firstNoteAt! - s.createdAt)),
    // Our clock and the vendor's are not the same clock: a few seconds of skew can put first-seen
    // before date_created. We cannot have seen it before it existed, so that reads as no lag.
    detectionLag: distribution(spans.filter((s) => !s.backfill).map((s) => s.firstSeenAt - s.createdAt)),
  };
}

/** Durations are never negative: a vendor timestamp a little ahead of another counts as zero. */
function distribution(durationsMs: number[]): Distribution {
  const sorted = durationsMs.map((d) => Math.max(0, d)).sort((a, b) => a - b);
  return { count: sorted.length, medianMs: percentile(sorted, 0.5), p90Ms: percentile(sorted, 0.9) };
}

/**
 * Linear interpolation between closest ranks (the common spreadsheet and numpy default), so the
 * median of an even count is the mean of the middle two. Rounded to whole milliseconds.
 */
export function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * fraction;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return Math.round(sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below));
}

type Interval = [start: number, end: number];

function overlaps(span: IncidentSpan, startMs: number, endMs: number, nowMs: number): boolean {
  // An incident that ended the instant it began still happened during the window.
  const end = Math.max(span.resolvedAt ?? nowMs, span.createdAt);
  return span.createdAt < endMs && end >= startMs;
}

function unionLength(intervals: Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let current: Interval | null = null;
  for (const [start, end] of sorted) {
    if (current && start <= current[1]) {
      current[1] = Math.max(current[1], end);
    } else {
      if (current) total += current[1] - current[0];
      current = [start, end];
    }
  }
  return current ? total + current[1] - current[0] : total;
}

/** The first instants of the last REPORT_MONTHS UTC months, oldest first; the last holds `nowMs`. */
function monthStarts(nowMs: number): number[] {
  const now = new Date(nowMs);
  return Array.from({ length: REPORT_MONTHS }, (_, i) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (REPORT_MONTHS - 1 - i), 1));
}

function nextMonthStart(startMs: number): number {
  const start = new Date(startMs);
  return Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
}
