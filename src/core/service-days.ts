/** Per service, one entry per UTC day with the worst incident that touched it: the data of the daily bars. */
import { coveredMs, type Interval } from './coverage.ts';
import type { IncidentSpan } from './ports.ts';

export const DAY_MS = 86_400_000;

/** The vendor's current service names, in the order its status page lists them (developer-interface.md). */
export const VENDOR_SERVICES: readonly string[] = [
  'Login/SSO',
  'Messaging',
  'Notifications',
  'Search',
  'Workspace/Org Administration',
  'Canvases',
  'Connectivity',
  'Files',
  'Huddles',
  'Apps/Integrations/APIs',
  'Workflows',
];

/**
 * The row of incidents that name no service (a few a year). Counting them against every
 * service would invent outages; dropping them would hide them; so they get a row of their own. It
 * is called what the incident list, the incident page and every message call such an incident
 * (servicesList): the vendor names no service when the whole product is concerned.
 */
export const NO_SERVICE_ROW = 'All services';

export type DaySeverity = 'outage' | 'incident' | 'notice';

export type ServiceDay = {
  /** YYYY-MM-DD, UTC. */
  date: string;
  worst: DaySeverity | null;
  /** The archive cannot speak for the whole day (before it began, or blind): "no data", not "no incident". */
  noData: boolean;
  /** Oldest first. */
  incidents: { id: string; title: string; type: string }[];
};

export type ServiceDayRow = { service: string; days: ServiceDay[] };

export type ServiceDaysOptions = {
  nowMs: number;
  days: number;
  /** The rows always shown, in this order; default VENDOR_SERVICES. Others seen in spans follow. */
  services?: readonly string[];
  /** Merged no-data intervals (coverage.ts noDataIntervals); none: every day has data. */
  noData?: readonly Interval[];
};

const RANK: Record<DaySeverity, number> = { notice: 1, incident: 2, outage: 3 };

/** The documented types; anything else (clients expect a "maintenance" nobody has seen) is shown as a notice. */
export function severityOf(type: string): DaySeverity {
  return type === 'outage' || type === 'incident' ? type : 'notice';
}

export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Start of the first day shown: the window ends with the UTC day that holds `nowMs`. */
export function firstDayStart(nowMs: number, days: number): number {
  return (Math.floor(nowMs / DAY_MS) - (days - 1)) * DAY_MS;
}

/**
 * A span touches a day when it was going on at any instant of it. An ongoing incident goes on
 * until now; one that ended the instant it began still touches its day.
 */
export function serviceDays(spans: readonly IncidentSpan[], options: ServiceDaysOptions): ServiceDayRow[] {
  const { nowMs, days } = options;
  const start = firstDayStart(nowMs, days);
  const known = options.services ?? VENDOR_SERVICES;
  const rows = new Map<string, ServiceDay[]>();
  // Today counts up to now: a day is without data when nothing of it that has passed is covered.
  const noData = Array.from({ length: days }, (_, i) => {
    const dayStart = start + i * DAY_MS;
    const dayEnd = Math.min(dayStart + DAY_MS, nowMs);
    return dayEnd > dayStart && coveredMs(dayStart, dayEnd, options.noData ?? []) >= dayEnd - dayStart;
  });
  const rowOf = (service: string) => {
    let row = rows.get(service);
    if (!row) {
      row = Array.from({ length: days }, (_, i) => ({ date: utcDate(start + i * DAY_MS), worst: null, noData: noData[i]!, incidents: [] }));
      rows.set(service, row);
    }
    return row;
  };
  for (const service of known) rowOf(service);

  const ordered = [...spans].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  for (const span of ordered) {
    const end = Math.max(span.resolvedAt ?? nowMs, span.createdAt + 1);
    const first = Math.max(0, Math.floor((span.createdAt - start) / DAY_MS));
    // `end` is exclusive: an incident resolved at midnight does not touch the day that begins then.
    const last = Math.min(days - 1, Math.floor((end - 1 - start) / DAY_MS));
    if (last < first) continue;
    const severity = severityOf(span.type);
    const services = span.services.length > 0 ? new Set(span.services) : [NO_SERVICE_ROW];
    for (const service of services) {
      const row = rowOf(service);
      for (let i = first; i <= last; i++) {
        const day = row[i]!;
        day.incidents.push({ id: span.id, title: span.title, type: span.type });
        if (day.worst === null || RANK[severity] > RANK[day.worst]) day.worst = severity;
      }
    }
  }

  const knownSet = new Set(known);
  const others = [...rows.keys()].filter((s) => !knownSet.has(s) && s !== NO_SERVICE_ROW).sort();
  const order = [...known, ...others, ...(rows.has(NO_SERVICE_ROW) && !knownSet.has(NO_SERVICE_ROW) ? [NO_SERVICE_ROW] : [])];
  return order.map((service) => ({ service, days: rows.get(service)! }));
}
