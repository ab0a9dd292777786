/**
 * The diff: compares what a poll saw with what the archive holds and decides, as plain data, which
 * incidents get a new version and which events that makes. No I/O and no clock: `now` is passed in.
 */
import type { Incident, Note } from './incident.ts';
import { compareNotes, isOngoing, sameServices } from './incident.ts';
import { eventId, summarize, type IncidentFieldChanges, type NoteRef, type StatusEvent } from './events.ts';

/** An incident as the archive holds it: the latest version, its revision, and when it ended. */
export type ArchivedIncident = Incident & { revision: number; resolvedAt: number | null };

/** One incident whose stored state must change. */
export type IncidentWrite = {
  incident: Incident;
  /**
   * The archived version the plan was computed against (null: new), so the store writes only
   * what differs. Its revision is checked: the store refuses the write if the archive moved.
   */
  previous: ArchivedIncident | null;
  baseRevision: number | null;
  revision: number;
  /** When the incident ended (epoch ms), null while it goes on. */
  resolvedAt: number | null;
};

export type PollPlan = {
  writes: IncidentWrite[];
  events: StatusEvent[];
};

/** A plan cut to the poll's budget: `pending` changed incidents are left for the next polls. */
export type BudgetedPlan = PollPlan & { pending: number };

/**
 * The most incidents one poll writes, unless configured (POLL_MAX_INCIDENT_CHANGES). A real poll
 * changes one or two, and a first poll backfills the vendor's whole history (about 120); a hostile
 * feed near the body cap changes thousands, each costing milliseconds of writes and kilobytes of
 * archive (test/bench/poll-flood.ts).
 */
export const DEFAULT_MAX_INCIDENT_WRITES_PER_POLL = 200;

export type PlanInput = {
  observed: readonly Incident[];
  archived: ReadonlyMap<string, ArchivedIncident>;
  now: number;
  backfill: boolean;
  /** At most this many incidents written; the rest are counted in `pending`. Absent: no limit. */
  maxWrites?: number;
};

/** An observed incident whose stored state must change, and what changed. */
export type Candidate = { incident: Incident; before: ArchivedIncident | undefined; found: Change[] };

export function planPoll({ observed, archived, ...rest }: PlanInput): BudgetedPlan {
  return planChanges(findChanges(observed, archived), rest);
}

/** The first half of planPoll, which a caller may run over slices of the feed (yielding between them). */
export function findChanges(observed: readonly Incident[], archived: ReadonlyMap<string, ArchivedIncident>): Candidate[] {
  const candidates: Candidate[] = [];
  for (const seen of observed) {
    const before = archived.get(seen.id);
    const incident = before ? keepVanishedNotes(seen, before) : seen;
    const found: Change[] = before ? diffIncident(before, incident) : [{ what: 'created', type: 'incident.created' }];
    if (before && found.length === 0 && !storedFieldsDiffer(before, incident)) continue;
    candidates.push({ incident, before, found });
  }
  return candidates;
}

/** The second half of planPoll: the writes and events of the changes found, cut to the budget. */
export function planChanges(
  candidates: readonly Candidate[],
  { now, backfill, maxWrites = Number.POSITIVE_INFINITY }: Omit<PlanInput, 'observed' | 'archived'>,
): BudgetedPlan {
  const chosen = candidates.length > maxWrites ? new Set([...candidates].sort(compareApplyOrder).slice(0, Math.max(0, maxWrites))) : null;

  const writes: IncidentWrite[] = [];
  const events: StatusEvent[] = [];
  // In the feed's order either way: the budget decides only which incidents are written.
  for (const candidate of candidates) {
    if (chosen && !chosen.has(candidate)) continue;
    const { incident, before, found } = candidate;
    const revision = (before?.revision ?? 0) + 1;
    writes.push({ incident, previous: before ?? null, baseRevision: before?.revision ?? null, revision, resolvedAt: resolvedAt(before, incident) });
    for (const change of found) {
      events.push(toEvent(change, incident, before, revision, now, backfill));
    }
  }
  // The log reads in the order things happened, not the order the feed listed them (history
  // comes newest first): a backfill of six months then replays oldest first.
  events.sort((a, b) => a.occurredAt - b.occurredAt);
  return { writes, events, pending: candidates.length - writes.length };
}

/**
 * Which changes a capped poll applies first. New incidents and changes of status (what
 * subscribers and the widget most need) first, then other changes to ongoing incidents, then the
 * rest. Within each, the incident with the fewest archived versions first: applying a change
 * raises its revision, so a feed that edits everything on every poll still gives every incident
 * its turn. Then the oldest vendor update, so a large backfill replays in order; then the id, so
 * the choice never depends on the feed's order.
 */
function compareApplyOrder(a: Candidate, b: Candidate): number {
  return (
    applyTier(a) - applyTier(b) ||
    (a.before?.revision ?? 0) - (b.before?.revision ?? 0) ||
    a.incident.dateUpdated.ms - b.incident.dateUpdated.ms ||
    (a.incident.id < b.incident.id ? -1 : a.incident.id > b.incident.id ? 1 : 0)
  );
}

function applyTier({ incident, before, found }: Candidate): number {
  if (!before || found.some((change) => change.what === 'status')) return 0;
  return isOngoing(incident.status) ? 1 : 2;
}

/**
 * The plan in atomic pieces of at most `maxWrites` incidents, each with its incidents' events
 * (still in time order): a large poll is written piece by piece, yielding in between, and a crash
 * leaves whole pieces. Incidents go in the order of their first event, so the event log of a
 * large backfill still reads oldest first. Always at least one piece, so an empty plan is still
 * applied once.
 */
export function splitPlan(plan: PollPlan, maxWrites: number): PollPlan[] {
  const size = Math.max(1, maxWrites);
  if (plan.writes.length <= size) return [{ writes: plan.writes, events: plan.events }];
  const firstEventAt = new Map<string, number>();
  for (const event of plan.events) if (!firstEventAt.has(event.incidentId)) firstEventAt.set(event.incidentId, event.occurredAt);
  const at = (write: IncidentWrite) => firstEventAt.get(write.incident.id) ?? write.incident.dateUpdated.ms;
  const ordered = [...plan.writes].sort((a, b) => at(a) - at(b));
  const pieces: PollPlan[] = [];
  for (let start = 0; start < ordered.length; start += size) {
    const writes = ordered.slice(start, start + size);
    const ids = new Set(writes.map((w) => w.incident.id));
    pieces.push({ writes, events: plan.events.filter((e) => ids.has(e.incidentId)) });
  }
  return pieces;
}

export type Change =
  | { what: 'created'; type: 'incident.created' }
  | { what: 'status'; type: 'incident.status_changed'; from: string; to: string }
  | { what: 'updated'; type: 'incident.updated'; changes: IncidentFieldChanges }
  | { what: `note-added.${string}`; type: 'incident.note_added'; note: Note }
  | { what: `note-edited.${string}`; type: 'incident.note_edited'; note: Note; from: string };

/** What changed that people care about. Content is compared, not timestamps: the feed edits in place. */
export function diffIncident(before: Incident, after: Incident): Change[] {
  const changes: Change[] = [];
  if (before.status !== after.status) {
    changes.push({ what: 'status', type: 'incident.status_changed', from: before.status, to: after.status });
  }
  const fields = diffFields(before, after);
  if (Object.keys(fields).length > 0) changes.push({ what: 'updated', type: 'incident.updated', changes: fields });

  const previousNotes = new Map(before.notes.map((n) => [n.key, n]));
  for (const note of after.notes) {
    const previous = previousNotes.get(note.key);
    if (!previous) {
      changes.push({ what: `note-added.${note.key}`, type: 'incident.note_added', note });
    } else if (previous.body !== note.body) {
      changes.push({ what: `note-edited.${note.key}`, type: 'incident.note_edited', note, from: previous.body });
    }
  }
  return changes;
}

function diffFields(before: Incident, after: Incident): IncidentFieldChanges {
  const changes: IncidentFieldChanges = {};
  if (before.title !== after.title) changes.title = { from: before.title, to: after.title };
  if (before.type !== after.type) changes.type = { from: before.type, to: after.type };
  if (before.url !== after.url) changes.url = { from: before.url, to: after.url };
  if (!sameServices(before.services, after.services)) changes.services = { from: before.services, to: after.services };
  return changes;
}

/**
 * Differences worth a new stored version but no event: a moved date_updated, reordered services,
 * a re-stamped date_created. Compared at millisecond precision,
 * which is what the store keeps.
 */
function storedFieldsDiffer(before: Incident, after: Incident): boolean {
  return (
    before.dateUpdated.ms !== after.dateUpdated.ms ||
    before.dateCreated.ms !== after.dateCreated.ms ||
    before.dateUpdated.raw !== after.dateUpdated.raw ||
    before.dateCreated.raw !== after.dateCreated.raw ||
    before.services.join('\n') !== after.services.join('\n')
  );
}

/**
 * When an incident ended. Seen ending: the vendor's date_updated of that version. First seen
 * already over (backfill, or a poll gap): its last note, which is the resolution note, because
 * date_updated can move later for edits after the fact (5 of 44 in 2026).
 */
export function resolvedAt(before: ArchivedIncident | undefined, after: Incident): number | null {
  if (isOngoing(after.status)) return null;
  if (before && !isOngoing(before.status) && before.resolvedAt !== null) return before.resolvedAt;
  if (before && isOngoing(before.status)) return after.dateUpdated.ms;
  return after.notes.at(-1)?.dateCreated.ms ?? after.dateUpdated.ms;
}

/**
 * The observed incident plus any archived note the feed no longer shows. The vendor forgets; the
 * archive does not, and a note's absence is neither an event nor a reason to write.
 */
export function keepVanishedNotes(observed: Incident, archived: Incident): Incident {
  const observedKeys = new Set(observed.notes.map((n) => n.key));
  const vanished = archived.notes.filter((n) => !observedKeys.has(n.key));
  if (vanished.length === 0) return observed;
  return { ...observed, notes: [...observed.notes, ...vanished].sort(compareNotes) };
}

function toEvent(change: Change, incident: Incident, before: Incident | undefined, revision: number, now: number, backfill: boolean): StatusEvent {
  const base = {
    id: eventId(incident.id, revision, change.what),
    type: change.type,
    incidentId: incident.id,
    revision,
    detectedAt: now,
    backfill,
  };
  const summary = summarize(incident);
  const latest = incident.notes.at(-1);
  switch (change.type) {
    case 'incident.created':
      return {
        ...base,
        occurredAt: incident.dateCreated.ms,
        data: { type: change.type, incident: summary, ...(latest ? { note: noteRef(latest) } : {}) },
      };
    case 'incident.status_changed': {
      // The note that came with the change ("Resolved" plus its final note) is the newest one
      // that the archive did not have before.
      const known = new Set(before?.notes.map((n) => n.key));
      const fresh = incident.notes.filter((n) => !known.has(n.key)).at(-1);
      return {
        ...base,
        occurredAt: incident.dateUpdated.ms,
        data: { type: change.type, incident: summary, from: change.from, to: change.to, ...(fresh ? { note: noteRef(fresh) } : {}) },
      };
    }
    case 'incident.updated':
      return { ...base, occurredAt: incident.dateUpdated.ms, data: { type: change.type, incident: summary, changes: change.changes } };
    case 'incident.note_added':
      return { ...base, occurredAt: change.note.dateCreated.ms, data: { type: change.type, incident: summary, note: noteRef(change.note) } };
    case 'incident.note_edited':
      return {
        ...base,
        occurredAt: incident.dateUpdated.ms,
        data: { type: change.type, incident: summary, note: noteRef(change.note), from: change.from, to: change.note.body },
      };
  }
}

function noteRef(note: Note): NoteRef {
  return { key: note.key, date_created: note.dateCreated.raw, body: note.body };
}
