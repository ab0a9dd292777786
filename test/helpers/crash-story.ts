/**
 * The story the crash tests make the vendor tell: a numbered sequence of vendor states, and the
 * changes each state brings, written down from the story itself. The tests compare the archive and
 * the webhooks received with these changes, never with what the database under test holds.
 */
import type { EventType } from '../../src/core/events.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

/** One change people care about, identified by what changed (`key`), not by our event ids. */
export type ExpectedChange = {
  key: string;
  incident: string;
  type: EventType;
  /** Recorded while seeding the empty archive: history, never notified. */
  backfill: boolean;
  /** The incident as the vendor showed it in the state that brought the change. */
  status: string;
  title: string;
  services: string[];
};

/** The part of a change that tells it apart from the incident's other changes. */
export function changeKey(incident: string, type: EventType, detail: string): string {
  return `${incident}|${type}|${detail}`;
}

/** What a subscription asks for, and the README's rule for it, written here independently of src. */
export type StoryFilters = { services?: string[]; events?: EventType[] };

export function wants(filters: StoryFilters, change: ExpectedChange): boolean {
  if (change.backfill) return false;
  if (filters.services && !change.services.some((s) => filters.services!.includes(s))) return false;
  if (filters.events && !filters.events.includes(change.type)) return false;
  return true;
}

const STORY_FIRST_ID = 9000;
const FILLER_FIRST_ID = 5000;
/** The story's steps repeat with a fresh incident every cycle: open, note, edit, retitle, resolve, edit. */
const STEPS_PER_INCIDENT = 6;

/** Vendor time, minutes after a fixed instant, in the feed's own offset format. */
function vendorTime(minutes: number): string {
  const ms = Date.UTC(2026, 9, 1, 12, 0, 0) + minutes * 60_000 - 7 * 3_600_000;
  return `${new Date(ms).toISOString().slice(0, 19)}-07:00`;
}

export type CrashStory = {
  /** The vendor's incidents in state `step` (0: what the archive is seeded with). */
  state(step: number): RawIncident[];
  /** The changes an archive that saw states 0..`lastStep` in order must hold: each exactly once. */
  changesUpTo(lastStep: number): ExpectedChange[];
  /** The title suffix every filler incident carries in state `step`. */
  fillerVersion(step: number): string;
};

/**
 * `fillers` incidents are there from state 0 and are retitled in every state: a large write that a
 * kill can land in the middle of. The story incidents (ids from 9000, services alternating Files
 * and Calls) bring every kind of event, one step at a time.
 */
export function crashStory(options: { fillers: number }): CrashStory {
  const fillerVersion = (step: number) => `(version ${step})`;

  function storyIncidents(step: number): RawIncident[] {
    const incidents: RawIncident[] = [];
    for (let first = 1; first <= step; first += STEPS_PER_INCIDENT) {
      const cycle = (first - 1) / STEPS_PER_INCIDENT;
      const phase = Math.min(step - first, STEPS_PER_INCIDENT - 1);
      const at = (p: number) => vendorTime(first + p);
      const notes = [{ body: `<p>Investigating ${cycle}.</p>`, date_created: at(0) }];
      if (phase >= 1) notes.push({ body: `<p>Cause found ${cycle}.</p>`, date_created: at(1) });
      if (phase >= 2) notes[1]!.body = `<p>Cause found ${cycle}: a bad deploy.</p>`;
      if (phase >= 4) notes.push({ body: `<p>Resolved ${cycle}.</p>`, date_created: at(4) });
      if (phase >= 5) notes[2]!.body = `<p>Resolved ${cycle}. Postmortem to follow.</p>`;
      incidents.push(
        rawIncident({
          id: STORY_FIRST_ID + cycle,
          title: phase >= 3 ? `Story ${cycle}: uploads fail` : `Story ${cycle}`,
          status: phase >= 4 ? 'resolved' : 'active',
          services: [cycle % 2 === 0 ? 'Files' : 'Calls'],
          url: `https://slack-status.com/2026-10/story${cycle}`,
          date_created: at(0),
          date_updated: at(phase),
          notes,
        }),
      );
    }
    return incidents;
  }

  function fillers(step: number): RawIncident[] {
    return Array.from({ length: options.fillers }, (_, i) =>
      rawIncident({
        id: FILLER_FIRST_ID + i,
        title: `Incident ${i} ${fillerVersion(step)}`,
        status: 'resolved',
        services: ['Messaging'],
        url: `https://slack-status.com/2026-09/filler${i}`,
        date_created: '2026-09-01T05:00:00-07:00',
        date_updated: '2026-09-01T06:00:00-07:00',
        notes: [{ body: `<p>Note of incident ${i}. ${'Details. '.repeat(20)}</p>`, date_created: '2026-09-01T05:00:00-07:00' }],
      }),
    );
  }

  /** What step `step` (1 and later) changes, by the story's own script. */
  function changesOf(step: number): ExpectedChange[] {
    const now = new Map(storyIncidents(step).map((i) => [String(i.id), i]));
    const change = (incident: RawIncident, type: EventType, detail: string): ExpectedChange => ({
      key: changeKey(String(incident.id), type, detail),
      incident: String(incident.id),
      type,
      backfill: false,
      status: incident.status,
      title: incident.title,
      services: incident.services,
    });
    const changes = fillers(step).map((f, i) => change(f, 'incident.updated', `title:Incident ${i} ${fillerVersion(step - 1)}>${f.title}`));
    const cycle = Math.floor((step - 1) / STEPS_PER_INCIDENT);
    const phase = (step - 1) % STEPS_PER_INCIDENT;
    const incident = now.get(String(STORY_FIRST_ID + cycle))!;
    const notes = incident.notes.map((n) => n.body);
    switch (phase) {
      case 0:
        changes.push(change(incident, 'incident.created', incident.title));
        break;
      case 1:
        changes.push(change(incident, 'incident.note_added', notes[1]!));
        break;
      case 2:
        changes.push(change(incident, 'incident.note_edited', `<p>Cause found ${cycle}.</p>>${notes[1]}`));
        break;
      case 3:
        changes.push(change(incident, 'incident.updated', `title:Story ${cycle}>${incident.title}`));
        break;
      case 4:
        changes.push(change(incident, 'incident.status_changed', 'active>resolved'));
        changes.push(change(incident, 'incident.note_added', notes[2]!));
        break;
      case 5:
        changes.push(change(incident, 'incident.note_edited', `<p>Resolved ${cycle}.</p>>${notes[2]}`));
        break;
    }
    return changes;
  }

  return {
    state: (step) => [...fillers(step), ...storyIncidents(step)],
    fillerVersion,
    changesUpTo(lastStep) {
      // State 0 seeds the archive: each incident in it is one backfill "created".
      const seeded = fillers(0).map<ExpectedChange>((f) => ({
        key: changeKey(String(f.id), 'incident.created', f.title),
        incident: String(f.id),
        type: 'incident.created',
        backfill: true,
        status: f.status,
        title: f.title,
        services: f.services,
      }));
      const later = Array.from({ length: lastStep }, (_, i) => changesOf(i + 1)).flat();
      return [...seeded, ...later];
    },
  };
}
