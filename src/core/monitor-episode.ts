/**
 * Decides when the monitor's blindness is news: `monitor.blind` once the feed has been
 * unreadable for the staleness limit, `monitor.recovered` at the first read after. Pure: the poller
 * passes the time, the feed's health and the newest monitor event the archive holds.
 *
 * An episode is keyed by the last good read before it (`never` when there was none), so its ids are
 * the same whoever plans it and however often: `monitor.blind.<ms>` and `monitor.recovered.<ms>`.
 * Against flapping: an episode starts only once the feed has been unreadable for the whole limit
 * (a feed that answers every few minutes never starts one), and not within MONITOR_QUIET_MS of the
 * last recovery; a blindness that outlasts the quiet time is then reported, with its true `since`.
 * So a feed flickering around the limit sends at most one blind/recovered pair per quiet time.
 */
import type { KnownIncident, MonitorEvent, MonitorEventData } from './events.ts';
import type { Incident } from './incident.ts';
import { MONITOR_ERROR_MAX_CHARS, MONITOR_KNOWN_INCIDENTS_MAX } from './monitor-message.ts';
import { truncate } from './notification-message.ts';

/** Bounds of "what we last knew" in a stored blind event (the widget cuts titles at 200 too). */
const KNOWN_TITLE_MAX_CHARS = 200;
const KNOWN_WORD_MAX_CHARS = 100;
const KNOWN_SERVICES_MAX = 20;

/** After a recovery, this long before a new blind episode may be announced. */
export const MONITOR_QUIET_MS = 30 * 60_000;

/** What the archive's newest monitor event says: enough to tell an open episode from a closed one. */
export type LatestMonitorEvent = Pick<MonitorEvent, 'id' | 'type' | 'detectedAt' | 'data'>;

export type MonitorInput = {
  /** Whether this poll read the feed (ok or partial). */
  read: boolean;
  now: number;
  /** The last successful read before this poll, epoch ms; null if none ever. */
  lastSuccessAt: number | null;
  /** Where a never-read feed's blindness is counted from: when this process began polling. */
  pollingSince: number;
  staleAfterMs: number;
  quietMs?: number;
  latest: LatestMonitorEvent | null;
  /** This poll's error, for a blind event. */
  error: string;
  /** The incidents going on at the last good read, worst first, for a blind event. */
  ongoing: readonly Incident[];
};

export function decideMonitorEvent(input: MonitorInput): MonitorEvent | null {
  const { latest, now } = input;
  const open = latest?.data.type === 'monitor.blind' ? latest : null;
  if (input.read) {
    if (!open) return null;
    const episode = open.id.slice('monitor.blind.'.length);
    const since = open.data.since;
    return monitorEvent(`monitor.recovered.${episode}`, now, {
      type: 'monitor.recovered',
      since,
      recovered_at: new Date(now).toISOString(),
      blind_for_ms: since === null ? null : now - Date.parse(since),
    });
  }
  if (open) return null;
  const reference = input.lastSuccessAt ?? input.pollingSince;
  if (now - reference < input.staleAfterMs) return null;
  if (latest && now - latest.detectedAt < (input.quietMs ?? MONITOR_QUIET_MS)) return null;
  const episode = input.lastSuccessAt === null ? 'never' : String(input.lastSuccessAt);
  // A recovery of this very episode means it was told already (a read moves lastSuccessAt on).
  if (latest?.id === `monitor.recovered.${episode}`) return null;
  // Cut as the event is made: it is stored, and a vendor can send a megabyte of title.
  const known: KnownIncident[] = input.ongoing.slice(0, MONITOR_KNOWN_INCIDENTS_MAX).map((incident) => ({
    id: incident.id,
    title: truncate(incident.title, KNOWN_TITLE_MAX_CHARS),
    type: truncate(incident.type, KNOWN_WORD_MAX_CHARS),
    status: truncate(incident.status, KNOWN_WORD_MAX_CHARS),
    services: incident.services.slice(0, KNOWN_SERVICES_MAX).map((name) => truncate(name, KNOWN_WORD_MAX_CHARS)),
  }));
  return monitorEvent(`monitor.blind.${episode}`, now, {
    type: 'monitor.blind',
    since: input.lastSuccessAt === null ? null : new Date(input.lastSuccessAt).toISOString(),
    last_error: truncate(input.error, MONITOR_ERROR_MAX_CHARS),
    last_known: input.lastSuccessAt === null ? { ongoing: [], more: 0 } : { ongoing: known, more: Math.max(0, input.ongoing.length - known.length) },
  });
}

function monitorEvent(id: string, now: number, data: MonitorEventData): MonitorEvent {
  return { id, type: data.type, incidentId: '', revision: 0, occurredAt: now, detectedAt: now, backfill: false, data };
}
