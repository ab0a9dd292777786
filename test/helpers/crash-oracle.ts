/**
 * Checks a crash test's outcome against its story: the archive file must hold each expected change
 * exactly once, and the webhook receiver must have each (change, subscription) pair under exactly
 * one webhook-id. Differences come back as readable lists, so a failure names the change.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { EventType } from '../../src/core/events.ts';
import { changeKey, wants, type ExpectedChange, type StoryFilters } from './crash-story.ts';
import type { ReceivedRequest } from './webhook-receiver.ts';

type ChangeFields = { from?: string; to?: string; note?: { body: string }; changes?: Record<string, { from: unknown; to: unknown }> };
type IncidentFields = { id: string; title: string; status: string };

/** The key of a change as an event's data or a webhook's payload carries it (same field names). */
function keyOf(type: EventType, incident: IncidentFields, data: ChangeFields): string {
  switch (type) {
    case 'incident.created':
      return changeKey(incident.id, type, incident.title);
    case 'incident.status_changed':
      return changeKey(incident.id, type, `${data.from}>${data.to}`);
    case 'incident.note_added':
      return changeKey(incident.id, type, data.note?.body ?? '');
    case 'incident.note_edited':
      // An event's data has the new body as `to`; a webhook has it as `note.body`.
      return changeKey(incident.id, type, `${data.from}>${data.to ?? data.note?.body}`);
    case 'incident.updated': {
      const fields = Object.entries(data.changes ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
      return changeKey(incident.id, type, fields.map(([field, c]) => `${field}:${String(c.from)}>${String(c.to)}`).join(';'));
    }
    // The crash stories' vendor never goes dark: a monitor event would be a change no story told.
    case 'monitor.blind':
    case 'monitor.recovered':
    // Nor does it watch a status page beside its feed: no component changes.
    case 'component.status_changed':
      return type;
  }
}

export type ArchiveSnapshot = {
  integrity: string;
  incidents: number;
  fillers: number;
  /** The distinct filler versions present: more than one is a poll half applied. */
  fillerVersions: Set<string>;
  events: { id: string; type: EventType; backfill: boolean; dataJson: string }[];
  okPolls: number;
};

const COMPLETE_POLLS = "SELECT count(*) AS n FROM poll_runs WHERE outcome = 'ok' AND pending_incidents = 0";

const EMPTY: ArchiveSnapshot = { integrity: 'ok', incidents: 0, fillers: 0, fillerVersions: new Set(), events: [], okPolls: 0 };

export function readArchive(path: string): ArchiveSnapshot {
  // Killed before it created the file: an empty archive.
  if (!existsSync(path)) return EMPTY;
  // Read-write, as the next process would open it: a read-only connection cannot recover the
  // write-ahead log a killed writer left behind.
  const db = new Database(path, { fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    // Killed before its migrations committed (they run in one transaction): no tables yet.
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'incidents'").get()) return { ...EMPTY, integrity };
    const titles = db.prepare("SELECT title FROM incidents WHERE title LIKE 'Incident %'").all() as { title: string }[];
    return {
      integrity,
      incidents: (db.prepare('SELECT count(*) AS n FROM incidents').get() as { n: number }).n,
      fillers: titles.length,
      fillerVersions: new Set(titles.map((r) => r.title.replace(/^Incident \d+ /, ''))),
      events: (db.prepare('SELECT id, type, backfill, data_json AS dataJson FROM events ORDER BY seq').all() as ArchiveSnapshot['events']).map((e) => ({
        ...e,
        backfill: Boolean(e.backfill),
      })),
      okPolls: (db.prepare(COMPLETE_POLLS).get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/**
 * How many polls have committed a complete read with nothing left for a later poll (a poll writes
 * at most POLL_MAX_INCIDENT_CHANGES incidents): cheap enough to ask every 100 ms.
 */
export function countOkPolls(path: string): number {
  if (!existsSync(path)) return 0;
  const db = new Database(path, { fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'poll_runs'").get()) return 0;
    return (db.prepare(COMPLETE_POLLS).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export type ArchiveDifferences = {
  /** Changes the vendor published that the archive does not hold. */
  missing: string[];
  /** Events for changes that never happened in the story. */
  unexpected: string[];
  /** Changes held more than once (under different event ids: the unique index cannot see it). */
  repeated: string[];
  /** Events whose incident, or backfill flag, is not what the story showed at that change. */
  wrong: string[];
};

/** Compares the archive's events with the story's changes: every list is empty when they agree. */
export function compareArchive(expected: readonly ExpectedChange[], events: ArchiveSnapshot['events']): ArchiveDifferences {
  const byKey = new Map(expected.map((c) => [c.key, c]));
  const found = new Map<string, string[]>();
  const diff: ArchiveDifferences = { missing: [], unexpected: [], repeated: [], wrong: [] };
  for (const event of events) {
    const data = JSON.parse(event.dataJson) as ChangeFields & { incident: IncidentFields };
    const key = keyOf(event.type, data.incident, data);
    found.set(key, [...(found.get(key) ?? []), event.id]);
    const want = byKey.get(key);
    if (!want) diff.unexpected.push(`${key} (${event.id})`);
    else if (want.backfill !== event.backfill || want.status !== data.incident.status || want.title !== data.incident.title) {
      diff.wrong.push(`${key} (${event.id}): backfill ${event.backfill}, status ${data.incident.status}, title ${data.incident.title}`);
    }
  }
  for (const [key, ids] of found) if (ids.length > 1) diff.repeated.push(`${key} as ${ids.join(', ')}`);
  for (const change of expected) if (!found.has(change.key)) diff.missing.push(change.key);
  return diff;
}

export type WebhookDifferences = {
  /** (subscription, change) pairs the filters let through that no request carried. */
  missing: string[];
  /** Requests for a pair that should not exist: a change not in the story, or one the filters exclude. */
  unexpected: string[];
  /** Pairs that arrived under more than one webhook-id: a receiver deduplicating by id sees two. */
  underSeveralIds: string[];
  /** Payloads whose incident is not what the story showed at that change. */
  wrong: string[];
};

/**
 * Compares what the receiver got with the story. A request names its subscription by the
 * `?s=<name>` its URL was registered with; re-sends under the same webhook-id are allowed.
 */
export function compareWebhooks(
  expected: readonly ExpectedChange[],
  subscriptions: Readonly<Record<string, StoryFilters>>,
  received: readonly ReceivedRequest[],
): WebhookDifferences & { requests: number; distinctIds: number } {
  const pairs = new Map<string, ExpectedChange>();
  for (const [name, filters] of Object.entries(subscriptions)) {
    for (const change of expected) if (wants(filters, change)) pairs.set(`${name}|${change.key}`, change);
  }
  const ids = new Map<string, Set<string>>();
  const diff: WebhookDifferences = { missing: [], unexpected: [], underSeveralIds: [], wrong: [] };
  for (const request of received) {
    const name = new URL(request.path, 'http://receiver').searchParams.get('s') ?? '?';
    const payload = JSON.parse(request.body) as { type: EventType; data: ChangeFields & { incident: IncidentFields } };
    const pair = `${name}|${keyOf(payload.type, payload.data.incident, payload.data)}`;
    ids.set(pair, (ids.get(pair) ?? new Set()).add(String(request.headers['webhook-id'])));
    const want = pairs.get(pair);
    if (!want) diff.unexpected.push(pair);
    else if (want.status !== payload.data.incident.status || want.title !== payload.data.incident.title) {
      diff.wrong.push(`${pair}: status ${payload.data.incident.status}, title ${payload.data.incident.title}`);
    }
  }
  for (const [pair, set] of ids) if (set.size > 1) diff.underSeveralIds.push(`${pair} as ${[...set].join(', ')}`);
  for (const pair of pairs.keys()) if (!ids.has(pair)) diff.missing.push(pair);
  const distinctIds = new Set(received.map((r) => String(r.headers['webhook-id']))).size;
  return { ...diff, unexpected: [...new Set(diff.unexpected)], requests: received.length, distinctIds };
}
