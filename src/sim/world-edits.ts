/** Pure transformations of the world that scenario steps are made of; each returns a new list. */
import { incidentUrl } from './incident-url.ts';
import { cloneIncident, type SimIncident } from './world.ts';

export type NewIncident = {
  id: number;
  title: string;
  type: string;
  services: string[];
  firstNote: string;
  atMs: number;
  status?: string;
};

/** A new incident with one note; the first note's date equals date_created, as in all 2026 data. */
export function openIncident(world: readonly SimIncident[], spec: NewIncident): SimIncident[] {
  const incident: SimIncident = {
    id: spec.id,
    title: spec.title,
    type: spec.type,
    status: spec.status ?? 'active',
    url: incidentUrl(spec.id, spec.atMs),
    services: [...spec.services],
    dateCreatedMs: spec.atMs,
    dateUpdatedMs: spec.atMs,
    notes: [{ body: spec.firstNote, dateCreatedMs: spec.atMs }],
  };
  return [...world.filter((i) => i.id !== spec.id), incident];
}

function editIncident(world: readonly SimIncident[], id: number | undefined, edit: (incident: SimIncident) => void): SimIncident[] {
  return world.map((i) => {
    if (i.id !== id) return i;
    const copy = cloneIncident(i);
    edit(copy);
    return copy;
  });
}

/** An update note; it moves date_updated, as a real update does. */
export function addNote(world: readonly SimIncident[], id: number | undefined, body: string, atMs: number): SimIncident[] {
  return editIncident(world, id, (i) => {
    i.notes.push({ body, dateCreatedMs: atMs });
    i.dateUpdatedMs = Math.max(i.dateUpdatedMs, atMs);
  });
}

/** The vendor edits titles in place without touching date_updated (incident 1136). */
export function editTitle(world: readonly SimIncident[], id: number | undefined, title: string): SimIncident[] {
  return editIncident(world, id, (i) => {
    i.title = title;
  });
}

/** Rewrites one note's body in place; neither the note's date nor date_updated change. */
export function editNoteBody(world: readonly SimIncident[], id: number | undefined, noteIndex: number, body: string): SimIncident[] {
  return editIncident(world, id, (i) => {
    const note = i.notes[noteIndex];
    if (note) note.body = body;
  });
}

/** A status change with its closing note, e.g. to `resolved`. */
export function changeStatus(world: readonly SimIncident[], id: number | undefined, status: string, finalNote: string, atMs: number): SimIncident[] {
  return editIncident(addNote(world, id, finalNote, atMs), id, (i) => {
    i.status = status;
  });
}

/** date_updated moves on with no new note: seen on 5 of 44 incidents in 2026. */
export function touch(world: readonly SimIncident[], id: number | undefined, atMs: number): SimIncident[] {
  return editIncident(world, id, (i) => {
    i.dateUpdatedMs = Math.max(i.dateUpdatedMs, atMs);
  });
}
