/**
 * The extra check over the recorded real responses in ../shared/fixtures/real (not ours to commit):
 * every file parses without a skipped entry, and replaying it produces no event that did not happen.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planPoll, type ArchivedIncident } from '../src/core/diff.ts';
import { parseCurrentV1, parseCurrentV2, parseHistory, type FeedDocument } from '../src/core/feed-schema.ts';
import type { Incident } from '../src/core/incident.ts';
import { openTempArchive } from './helpers/temp-archive.ts';

const REAL_DIR = resolve(import.meta.dirname, '../../shared/fixtures/real');
const files = existsSync(REAL_DIR)
  ? [...readdirSync(REAL_DIR).filter((f) => f.endsWith('.json')), ...readdirSync(join(REAL_DIR, 'partial')).map((f) => `partial/${f}`)]
  : [];
const NOW = Date.UTC(2026, 10, 1);

/** A file is a v2 current, a v1 current (flat incident), or an array (history, or a list of snapshots). */
function parseAny(json: unknown): FeedDocument {
  if (Array.isArray(json)) return parseHistory(json);
  if (json && typeof json === 'object' && 'active_incidents' in json) return parseCurrentV2(json);
  return parseCurrentV1(json);
}

/** Polls one observation at a time, as the poller would, into an in-memory archive. */
function replay(archive: Map<string, ArchivedIncident>, incidents: readonly Incident[]) {
  const plan = planPoll({ observed: incidents, archived: archive, now: NOW, backfill: false });
  for (const w of plan.writes) archive.set(w.incident.id, { ...w.incident, revision: w.revision, resolvedAt: w.resolvedAt });
  return plan;
}

/** The same data as the vendor might send it on another day: notes and services in other orders. */
function reshuffled(json: unknown): unknown {
  const flip = (incident: Record<string, unknown>) => ({
    ...incident,
    notes: Array.isArray(incident.notes) ? [...incident.notes].reverse() : incident.notes,
    services: Array.isArray(incident.services) ? [...incident.services].reverse() : incident.services,
  });
  if (Array.isArray(json)) return json.map((i) => flip(i as Record<string, unknown>));
  const obj = json as Record<string, unknown>;
  if (Array.isArray(obj.active_incidents)) return { ...obj, active_incidents: obj.active_incidents.map((i) => flip(i as Record<string, unknown>)) };
  return 'id' in obj ? flip(obj) : obj;
}

describe.skipIf(files.length === 0)('real recorded feed responses (../shared/fixtures/real)', () => {
  const archive = openTempArchive();
  afterAll(() => archive.remove());

  it.each(files)('%s parses with nothing skipped and replays without a false event', (file) => {
    const json: unknown = JSON.parse(readFileSync(join(REAL_DIR, file), 'utf8'));
    const doc = parseAny(json);
    expect(doc.problems).toEqual([]);
    const expectedCount = Array.isArray(json)
      ? json.length
      : 'active_incidents' in (json as object)
        ? (json as { active_incidents: unknown[] }).active_incidents.length
        : 'id' in (json as object)
          ? 1
          : 0;
    expect(doc.incidents).toHaveLength(expectedCount);

    // Snapshot files list one incident several times: poll them one by one, in recorded order.
    const archived = new Map<string, ArchivedIncident>();
    const firstSight = new Set<string>();
    for (const incident of doc.incidents) {
      const plan = replay(archived, [incident]);
      for (const event of plan.events) {
        if (event.type === 'incident.created') {
          expect(firstSight.has(incident.id)).toBe(false);
          firstSight.add(incident.id);
        }
      }
    }
    // Seeing the same data again, in either order of notes and services, changes nothing.
    const latest = [...archived.values()];
    expect(replay(archived, latest).events).toEqual([]);
    const again = parseAny(reshuffled(json)).incidents.filter((i) => archived.get(i.id)?.revision === 1);
    expect(replay(archived, again).events).toEqual([]);
  });

  it('finds the in-place edits the snapshots recorded (1136: title and note changed, dates did not)', () => {
    const file = files.find((f) => f.includes('active_incident_snapshots'));
    expect(file).toBeDefined();
    const doc = parseAny(JSON.parse(readFileSync(join(REAL_DIR, file!), 'utf8')));
    const archived = new Map<string, ArchivedIncident>();
    const events = doc.incidents.filter((i) => i.id === '1136').flatMap((i) => replay(archived, [i]).events);
    expect(events.map((e) => e.type)).toContain('incident.updated');
    expect(events.every((e) => e.type !== 'incident.status_changed')).toBe(true);
  });

  it('stores every real incident in SQLite and reads it back without a difference', async () => {
    const all = new Map<string, Incident>();
    for (const file of files) {
      for (const incident of parseAny(JSON.parse(readFileSync(join(REAL_DIR, file), 'utf8'))).incidents) all.set(incident.id, incident);
    }
    const incidents = [...all.values()];
    const plan = planPoll({ observed: incidents, archived: await archive.store.loadIncidents(incidents.map((i) => i.id)), now: NOW, backfill: true });
    await archive.store.applyPoll({
      run: { id: 'real', startedAt: NOW, finishedAt: NOW, outcome: 'ok', sources: [], changes: {} },
      plan,
      deliveries: [],
      seenIds: incidents.map((i) => i.id),
      seenBefore: Number.MAX_SAFE_INTEGER,
      rejected: [],
      markSeeded: true,
    });
    const reread = await archive.store.loadIncidents(incidents.map((i) => i.id));
    expect(reread.size).toBe(incidents.length);
    expect(planPoll({ observed: incidents, archived: reread, now: NOW + 1, backfill: false })).toEqual({ writes: [], events: [], pending: 0 });
  });
});
