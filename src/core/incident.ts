/** The normalised incident: what statuswatch stores and compares, whatever shape the feed sent it in. */
import type { VendorTime } from './vendor-time.ts';

export type Note = {
  /** Stable identity within its incident: the note's instant, plus a counter for notes sharing one. */
  key: string;
  dateCreated: VendorTime;
  /** As the vendor sent it: plain text (2019-2023) or an HTML fragment (2026). Never trusted as HTML. */
  body: string;
};

export type Incident = {
  /** The vendor's id in canonical text form ("1579"); the feed sends numbers or strings. */
  id: string;
  title: string;
  /** Lower-cased. Documented: incident, notice, outage; anything else is kept as sent. */
  type: string;
  /** Lower-cased. Seen: active, resolved; documented also: scheduled, completed, cancelled. */
  status: string;
  url: string;
  /** In the vendor's order; compared as a set. */
  services: string[];
  dateCreated: VendorTime;
  dateUpdated: VendorTime;
  /** Oldest first, whatever order the feed used. */
  notes: Note[];
};

/** Statuses after which an incident is over. "canceled" is a spelling some clients use. */
const FINISHED_STATUSES = new Set(['resolved', 'completed', 'cancelled', 'canceled', 'ok']);

export function isOngoing(status: string): boolean {
  return !FINISHED_STATUSES.has(status);
}

/** Orders notes that share an instant: the counter at the end of the key ("1727786204000-1"). */
export function noteSeq(note: Pick<Note, 'key'>): number {
  return Number(note.key.slice(note.key.lastIndexOf('-') + 1));
}

/** Oldest first, by instant and then by counter. */
export function compareNotes(a: Note, b: Note): number {
  return a.dateCreated.ms - b.dateCreated.ms || noteSeq(a) - noteSeq(b);
}

/** The latest note by time (notes are kept oldest first). */
export function latestNote(incident: Pick<Incident, 'notes'>): Note | undefined {
  return incident.notes.at(-1);
}

export function sameServices(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sortedB = [...b].sort();
  return [...a].sort().every((name, i) => name === sortedB[i]);
}
