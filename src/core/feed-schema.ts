/**
 * Zod schemas for the vendor's status feed and the conversions to our Incident.
 * Strict about the envelope (a payload that is not a feed changes nothing), tolerant inside it
 * (ids as numbers or strings, either note order, empty services, unlisted values).
 */
import { z } from 'zod';
import type { Incident, Note } from './incident.ts';
import { parseVendorTime, type VendorTime } from './vendor-time.ts';
import { wellFormed } from './well-formed-text.ts';

/**
 * The vendor's feed began around 2012 (status.slack.com) and the oldest real data is from 2019:
 * a time before 2000 is a broken value, not history. Kept well clear of the real data on purpose.
 */
export const EARLIEST_VENDOR_TIME_MS = Date.UTC(2000, 0, 1);

const vendorTime = z.string().transform((text, ctx): VendorTime => {
  const parsed = parseVendorTime(text);
  if (!parsed) {
    ctx.addIssue({ code: 'custom', message: `expected an ISO 8601 timestamp with a real offset (at most ±14:00), got ${JSON.stringify(text.slice(0, 64))}` });
    return z.NEVER;
  }
  if (parsed.ms < EARLIEST_VENDOR_TIME_MS) {
    ctx.addIssue({ code: 'custom', message: `expected a time in 2000 or later, got ${JSON.stringify(text.slice(0, 64))}` });
    return z.NEVER;
  }
  return parsed;
});

/** Longest incident id accepted, digits or not: real ids are three or four digits. */
export const INCIDENT_ID_MAX_CHARS = 64;

const incidentId = z.union([z.number(), z.string()]).transform((value, ctx): string => {
  // A JSON number past 2^53 has already lost digits (a 400-digit one is Infinity): two ids could
  // become one, so only exact non-negative integers are taken as numbers.
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : '') : value.trim();
  if (text.length <= INCIDENT_ID_MAX_CHARS) {
    if (/^\d+$/.test(text)) return String(BigInt(text)); // "0622", "622" and 622 are one incident
    if (/^[A-Za-z0-9_.:-]+$/.test(text)) return text;
  }
  const shown = typeof value === 'number' ? String(value) : JSON.stringify(value.slice(0, INCIDENT_ID_MAX_CHARS + 1));
  ctx.addIssue({ code: 'custom', message: `expected an incident id (a whole number or up to ${INCIDENT_ID_MAX_CHARS} characters), got ${shown}` });
  return z.NEVER;
});

const lowerLabel = z.string().transform((s) => wellFormed(s.trim().toLowerCase()));
const text = z
  .string()
  .nullish()
  .transform((s) => wellFormed(s ?? ''));

const rawNote = z.object({ date_created: vendorTime, body: text });

const rawIncident = z.object({
  id: incidentId,
  title: text,
  type: lowerLabel.nullish().transform((t) => t || 'incident'),
  status: lowerLabel.pipe(z.string().min(1, 'expected a status')),
  url: text,
  date_created: vendorTime,
  date_updated: vendorTime.nullish(),
  services: z
    .array(z.string().transform(wellFormed))
    .nullish()
    .transform((s) => s ?? []),
  notes: z
    .array(rawNote)
    .nullish()
    .transform((n) => n ?? []),
});

export type RawIncident = z.input<typeof rawIncident>;

/** v2 `current`: the object that wraps all active incidents. */
const currentEnvelope = z.object({
  status: z.string(),
  date_created: z.string().optional(),
  date_updated: z.string().optional(),
  active_incidents: z.array(z.unknown()),
});

/** v1 `current` when nothing happened lately: `{status: "ok", date_created, date_updated}`. */
const terseOk = z.object({ status: z.string(), date_created: z.string().optional() }).strip();

export type ParseProblem = { index: number; id?: string; message: string };

/** A parsed feed document: the incidents it showed and the entries we had to skip. */
export type FeedDocument = {
  incidents: Incident[];
  problems: ParseProblem[];
};

export class NotAFeedError extends Error {
  override readonly name = 'NotAFeedError';
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`expected ${expected}, got ${got}`);
  }
}

/** Reads the entries of an incident list; `parseIncidentList`, or a memoised one. */
export type IncidentListParser = (items: unknown[]) => FeedDocument;

/** v2.0.0 `current`'s entries, unread. Throws NotAFeedError when the payload is not that object at all. */
export function currentV2Entries(json: unknown): unknown[] {
  const envelope = currentEnvelope.safeParse(json);
  if (!envelope.success) throw new NotAFeedError('an object with status and active_incidents[]', describe(json));
  return envelope.data.active_incidents;
}

/** v1.0.0 `current`'s entries: one flat incident object, or none for the terse ok. */
export function currentV1Entries(json: unknown): unknown[] {
  if (isObject(json) && 'id' in json) return [json];
  if (isObject(json) && Array.isArray(json.active_incidents)) return currentV2Entries(json);
  if (terseOk.safeParse(json).success) return [];
  throw new NotAFeedError('an incident object or {status: "ok"}', describe(json));
}

/** `history`'s entries (v1 and v2 alike): a bare array of incidents. */
export function historyEntries(json: unknown): unknown[] {
  if (!Array.isArray(json)) throw new NotAFeedError('an array of incidents', describe(json));
  return json;
}

/** v2.0.0 `current`. Throws NotAFeedError when the payload is not that object at all. */
export function parseCurrentV2(json: unknown, parseList: IncidentListParser = parseIncidentList): FeedDocument {
  return parseList(currentV2Entries(json));
}

/** v1.0.0 `current`: one flat incident object, or the terse ok. */
export function parseCurrentV1(json: unknown, parseList: IncidentListParser = parseIncidentList): FeedDocument {
  return parseList(currentV1Entries(json));
}

/** `history` (v1 and v2 alike): a bare array of incidents. */
export function parseHistory(json: unknown, parseList: IncidentListParser = parseIncidentList): FeedDocument {
  return parseList(historyEntries(json));
}

/**
 * One reading of a list in slices: `add` each slice in order (with its first index), then
 * `finish`. `add` answers how many of the slice's entries it validated: the rest were the previous
 * reading's, known by a comparison many times cheaper.
 */
export type IncidentListSession = { add(items: readonly unknown[], firstIndex: number): number; finish(): FeedDocument };

/** A memoised list parser that can also read a long list a slice at a time, so callers can yield between slices. */
export type MemoizedIncidentParser = IncidentListParser & { begin(): IncidentListSession };

/**
 * A parser that remembers the previous reading's entries: from one poll to the next almost every
 * incident is the same, and comparing its fields with last time's is many times cheaper than
 * validating it again (or serialising it to compare). Entries not seen in the latest finished
 * reading are forgotten; a reading never finished (the caller gave up) changes nothing.
 */
export function createMemoizedIncidentParser(): MemoizedIncidentParser {
  // Keyed by the entry's id as the feed wrote it, number or string: String() of a numeric id made
  // a new string to hash for every entry. An id that changes type is a miss, and is validated.
  let previous = new Map<string | number, KnownEntry>();
  const begin = (): IncidentListSession => {
    const next = new Map<string | number, KnownEntry>();
    const document: FeedDocument = { incidents: [], problems: [] };
    return {
      add(items, firstIndex) {
        let validated = 0;
        for (let offset = 0; offset < items.length; offset++) {
          const item = items[offset];
          const key = isObject(item) && (typeof item.id === 'string' || typeof item.id === 'number') ? item.id : null;
          const known = key === null ? undefined : previous.get(key);
          if (known !== undefined && sameParsedFields(known.raw, item as Record<string, unknown>)) {
            // This reading's copy is kept for the next comparison, not the one held: compared with
            // entries parsed a poll ago, the comparison reads memory still near at hand, where
            // entries kept since the feed's first reading cost more to reach than the young
            // copies saved the scavenger (a changed poll's parse and merge, timed in place).
            next.set(key!, { raw: item as Record<string, unknown>, incident: known.incident });
            document.incidents.push(known.incident);
            continue;
          }
          validated++;
          const result = parseEntry(item, firstIndex + offset);
          if ('problem' in result) {
            document.problems.push(result.problem);
          } else {
            if (key !== null) next.set(key, { raw: item as Record<string, unknown>, incident: result.incident });
            document.incidents.push(result.incident);
          }
        }
        return validated;
      },
      finish() {
        previous = next;
        return document;
      },
    };
  };
  const parse: IncidentListParser = (items) => {
    const session = begin();
    session.add(items, 0);
    return session.finish();
  };
  return Object.assign(parse, { begin });
}

type KnownEntry = { raw: Record<string, unknown>; incident: Incident };

/**
 * The fields rawIncident reads are equal (===), so parsing `b` would give what `a` gave: the
 * scalars, then services and notes as lists. Run for every known entry of every changed body, so
 * each field is read by name: entries of one feed share a shape, and a read by name stays a fast
 * one where a loop over the names made every read a generic lookup (in a CPU profile of changed
 * polls the comparisons took twice as long as JSON.parse of the body).
 */
function sameParsedFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return (
    a.id === b.id &&
    a.title === b.title &&
    a.type === b.type &&
    a.status === b.status &&
    a.url === b.url &&
    a.date_created === b.date_created &&
    a.date_updated === b.date_updated &&
    sameServices(a.services, b.services) &&
    sameNotes(a.notes, b.notes)
  );
}

function sameServices(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameNotes(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i];
    const y: unknown = b[i];
    if (!isObject(x) || !isObject(y) || x.body !== y.body || x.date_created !== y.date_created) return false;
  }
  return true;
}

export function parseIncidentList(items: unknown[]): FeedDocument {
  const document: FeedDocument = { incidents: [], problems: [] };
  items.forEach((item, index) => {
    const result = parseEntry(item, index);
    if ('problem' in result) document.problems.push(result.problem);
    else document.incidents.push(result.incident);
  });
  return document;
}

function parseEntry(item: unknown, index: number): { incident: Incident } | { problem: ParseProblem } {
  const parsed = rawIncident.safeParse(item);
  if (parsed.success) return { incident: normalizeIncident(parsed.data) };
  // Cut: the id may be the very value that was refused, and problems are logged.
  const id = isObject(item) && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id).slice(0, INCIDENT_ID_MAX_CHARS) : undefined;
  return { problem: { index, id, message: z.prettifyError(parsed.error).replace(/\n/g, '; ') } };
}

type ParsedIncident = z.output<typeof rawIncident>;

export function normalizeIncident(raw: ParsedIncident): Incident {
  return {
    id: raw.id,
    title: raw.title,
    type: raw.type,
    status: raw.status,
    url: raw.url,
    services: [...new Set(raw.services.map((s) => s.trim()).filter(Boolean))],
    dateCreated: raw.date_created,
    dateUpdated: raw.date_updated ?? raw.date_created,
    notes: normalizeNotes(raw.notes),
  };
}

/**
 * Oldest first, with keys that survive a change of order. The feed listed notes newest first until
 * 2023 and oldest first since; notes that share a second keep their relative order, read in the
 * list's own direction, so their keys do not swap when the direction flips.
 */
export function normalizeNotes(notes: ReadonlyArray<{ date_created: VendorTime; body: string }>): Note[] {
  const inListOrder = [...notes];
  const first = inListOrder[0];
  const last = inListOrder.at(-1);
  if (first && last && first.date_created.ms > last.date_created.ms) inListOrder.reverse();
  const chronological = inListOrder.sort((a, b) => a.date_created.ms - b.date_created.ms);
  const seenPerInstant = new Map<number, number>();
  return chronological.map((note) => {
    const n = seenPerInstant.get(note.date_created.ms) ?? 0;
    seenPerInstant.set(note.date_created.ms, n + 1);
    return { key: `${note.date_created.ms}-${n}`, dateCreated: note.date_created, body: note.body };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (isObject(value)) return `an object with keys ${Object.keys(value).slice(0, 8).join(', ') || '(none)'}`;
  return value === null ? 'null' : `a ${typeof value}`;
}
