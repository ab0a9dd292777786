/**
 * The mapping of Statuspage pages onto our model, through the main feed's own diff. Each scenario
 * is one that real pages played (the recorded captures' facts), replayed with bodies of our own.
 */
import { describe, expect, it } from 'vitest';
import { planPoll, type ArchivedIncident, type PollPlan } from '../../../src/core/diff.ts';
import {
  componentChanges,
  componentDirectory,
  componentStates,
  observedIncidents,
  ourStatus,
  ourType,
  type PageReading,
  type SourceIncident,
} from '../../../src/core/statuspage/mapping.ts';
import { parseIncidents, parseMaintenances, parseSummary } from '../../../src/core/statuspage/schema.ts';
import { component, incident, incidentsText, maintenancesText, summaryText, update } from '../../fixtures/statuspage-builders.ts';

const NOW = Date.UTC(2026, 10, 1);
const SOURCE = 'bitbucket';
const COMPONENTS = [component({ id: 'cpipe', name: 'Pipelines', status: 'partial_outage' }), component({ id: 'cweb', name: 'Website', status: 'operational' })];

type Archive = Map<string, ArchivedIncident>;

function poll(archive: Archive, reading: PageReading, source = SOURCE): PollPlan {
  const directory = componentDirectory(reading.summary?.components.items ?? parseSummary(summaryText({ components: COMPONENTS })).components.items);
  const plan = planPoll({ observed: observedIncidents(source, reading, directory), archived: archive, now: NOW, backfill: false });
  for (const w of plan.writes) archive.set(w.incident.id, { ...w.incident, revision: w.revision, resolvedAt: w.resolvedAt });
  return plan;
}

const summaryOf = (incidents: Record<string, unknown>[]) => ({ summary: parseSummary(summaryText({ components: COMPONENTS, incidents })) });
const listOf = (incidents: Record<string, unknown>[]) => ({ incidents: parseIncidents(incidentsText(incidents)).incidents.items });
const affected = [{ code: 'cpipe', name: 'Bitbucket Pipelines', old_status: 'operational', new_status: 'partial_outage' }];

// The Bitbucket incident of 2024-02-22: investigating -> monitoring -> investigating -> identified -> monitoring.
const u1 = update({ id: 'u1', status: 'investigating', body: 'We are investigating.', created_at: '2024-02-22T14:40:00.000Z', affected });
const u2 = update({ id: 'u2', status: 'identified', body: 'Cause found.', created_at: '2024-02-22T15:00:00.000Z', affected });
const u3 = update({ id: 'u3', status: 'monitoring', body: 'A fix is out.', created_at: '2024-02-22T15:20:00.000Z', affected });
const u4 = update({ id: 'u4', status: 'investigating', body: 'Errors are back.', created_at: '2024-02-22T16:10:00.000Z', affected });
const u5 = update({ id: 'u5', status: 'identified', body: 'Second cause found.', created_at: '2024-02-22T16:45:00.000Z', affected });
const u6 = update({ id: 'u6', status: 'monitoring', body: 'Fixed again.', created_at: '2024-02-22T17:20:00.000Z', affected, tweetId: '1760717163785245000' });
const u7 = update({ id: 'u7', status: 'resolved', body: 'Resolved.', created_at: '2024-02-22T17:45:00.000Z', affected });
const pipelines = (status: string, updatedAt: string, updates: Record<string, unknown>[]) =>
  incident({ id: '0t3fy4dr6sdn', name: 'Degraded Pipelines', status, created_at: '2024-02-22T14:40:00.000Z', updated_at: updatedAt, updates });

describe('an incident read only through summary.json', () => {
  it('is created once, gains each update as a note in time order, and a status going backwards is no false event', () => {
    const archive: Archive = new Map();
    const first = poll(archive, summaryOf([pipelines('investigating', '2024-02-22T14:40:00.000Z', [u1])]));
    expect(first.events.map((e) => e.type)).toEqual(['incident.created']);
    expect(archive.get('bitbucket:0t3fy4dr6sdn')).toMatchObject({
      status: 'active',
      type: 'outage',
      vendorStatus: 'investigating',
      vendorImpact: 'major',
      services: ['Pipelines'],
    });

    // Two updates arrived between polls.
    const second = poll(archive, summaryOf([pipelines('monitoring', '2024-02-22T15:20:00.000Z', [u1, u2, u3])]));
    expect(second.events.map((e) => [e.type, 'note' in e.data ? e.data.note?.body : null])).toEqual([
      ['incident.note_added', 'Cause found.'],
      ['incident.note_added', 'A fix is out.'],
    ]);
    const third = poll(archive, summaryOf([pipelines('investigating', '2024-02-22T16:10:00.000Z', [u1, u2, u3, u4])]));
    expect(third.events.map((e) => e.type)).toEqual(['incident.note_added']);
    expect(archive.get('bitbucket:0t3fy4dr6sdn')).toMatchObject({ status: 'active', vendorStatus: 'investigating' });
    poll(archive, summaryOf([pipelines('monitoring', '2024-02-22T17:20:00.000Z', [u1, u2, u3, u4, u5, u6])]));
    expect(archive.get('bitbucket:0t3fy4dr6sdn')?.notes.map((n) => n.body)).toEqual([
      'We are investigating.',
      'Cause found.',
      'A fix is out.',
      'Errors are back.',
      'Second cause found.',
      'Fixed again.',
    ]);
  });

  it('is not resolved when it drops out of summary.json: only incidents.json or its own status resolves it', () => {
    const archive: Archive = new Map();
    poll(archive, summaryOf([pipelines('monitoring', '2024-02-22T17:20:00.000Z', [u1, u2, u3, u4, u5, u6])]));
    const gone = poll(archive, summaryOf([]));
    expect(gone).toEqual({ writes: [], events: [], pending: 0 });
    expect(archive.get('bitbucket:0t3fy4dr6sdn')).toMatchObject({ status: 'active', resolvedAt: null });

    const confirmed = poll(archive, listOf([pipelines('resolved', '2024-02-22T17:45:00.000Z', [u1, u2, u3, u4, u5, u6, u7])]));
    expect(confirmed.events.map((e) => e.type)).toEqual(['incident.status_changed', 'incident.note_added']);
    expect(confirmed.events[0]?.data).toMatchObject({ from: 'active', to: 'resolved', note: { body: 'Resolved.' } });
    expect(archive.get('bitbucket:0t3fy4dr6sdn')?.resolvedAt).toBe(Date.UTC(2024, 1, 22, 17, 45));
  });

  it('is not resolved when it leaves the 50-item window of incidents.json unresolved', () => {
    const archive: Archive = new Map();
    poll(archive, listOf([pipelines('identified', '2024-02-22T15:00:00.000Z', [u1, u2])]));
    const others = Array.from({ length: 50 }, (_, n) =>
      incident({
        id: `later${n}`,
        name: 'Later',
        status: 'resolved',
        created_at: '2024-03-01T00:00:00.000Z',
        updated_at: '2024-03-01T01:00:00.000Z',
        updates: [],
      }),
    );
    const plan = poll(archive, { ...listOf(others), ...summaryOf([]) });
    expect(plan.events.filter((e) => e.incidentId === 'bitbucket:0t3fy4dr6sdn')).toEqual([]);
    expect(archive.get('bitbucket:0t3fy4dr6sdn')).toMatchObject({ status: 'active', vendorStatus: 'identified', resolvedAt: null });
  });

  it('shown first with several updates already, is one created event holding them all', () => {
    const archive: Archive = new Map();
    const plan = poll(archive, summaryOf([pipelines('monitoring', '2024-02-22T15:20:00.000Z', [u3, u1, u2])]));
    expect(plan.events.map((e) => e.type)).toEqual(['incident.created']);
    expect(plan.events[0]?.data).toMatchObject({ note: { body: 'A fix is out.' } });
    expect(archive.get('bitbucket:0t3fy4dr6sdn')?.notes).toHaveLength(3);
  });
});

describe('a resolved incident in incidents.json', () => {
  const resolvedUpdate = (body: string, updatedAt: string) =>
    update({ id: 'r1', status: 'resolved', body, created_at: '2026-07-29T10:00:00.000Z', updated_at: updatedAt });
  const github = (updatedAt: string, updates: Record<string, unknown>[], status = 'resolved', impact = 'minor') =>
    incident({
      id: '75g5xmzptjqb',
      name: 'Disruption with some GitHub services',
      status,
      impact,
      created_at: '2026-07-29T09:00:00.000Z',
      updated_at: updatedAt,
      updates,
    });
  const opening = update({ id: 'o1', status: 'investigating', body: 'We are investigating reports.', created_at: '2026-07-29T09:00:00.000Z' });

  it('whose resolved update is rewritten in place days later is one edit, never a new note', () => {
    const archive: Archive = new Map();
    poll(
      archive,
      listOf([github('2026-07-29T10:00:00.000Z', [opening, resolvedUpdate('This incident has been resolved.', '2026-07-29T10:00:00.000Z')])]),
      'github',
    );
    const plan = poll(
      archive,
      listOf([github('2026-07-30T12:00:00.000Z', [opening, resolvedUpdate('Resolved.<br />Root cause: a config change.', '2026-07-30T12:00:00.000Z')])]),
      'github',
    );
    expect(plan.events.map((e) => e.type)).toEqual(['incident.note_edited']);
    expect(plan.events[0]?.data).toMatchObject({ from: 'This incident has been resolved.', to: 'Resolved.<br />Root cause: a config change.' });
    expect(archive.get('github:75g5xmzptjqb')?.resolvedAt).toBe(Date.UTC(2026, 6, 29, 10));
  });

  it('that gains a postmortem stays resolved: a note, no status event', () => {
    const archive: Archive = new Map();
    const resolved = resolvedUpdate('Resolved.', '2026-07-29T10:00:00.000Z');
    poll(archive, listOf([github('2026-07-29T10:00:00.000Z', [opening, resolved])]), 'github');
    const postmortem = update({ id: 'p1', status: 'postmortem', body: '### **SUMMARY**', created_at: '2026-08-05T10:00:00.000Z', display_at: null });
    const plan = poll(archive, listOf([github('2026-08-05T10:00:04.000Z', [opening, resolved, postmortem], 'postmortem')]), 'github');
    expect(plan.events.map((e) => e.type)).toEqual(['incident.note_added']);
    expect(archive.get('github:75g5xmzptjqb')).toMatchObject({ status: 'resolved', vendorStatus: 'postmortem', resolvedAt: Date.UTC(2026, 6, 29, 10) });
  });

  it('keeps ids apart across sources that use the same vendor id', () => {
    const directory = componentDirectory([]);
    const reading = listOf([github('2026-07-29T10:00:00.000Z', [opening])]);
    expect(observedIncidents('a', reading, directory)[0]?.id).not.toBe(observedIncidents('b', reading, directory)[0]?.id);
  });
});

describe('a maintenance', () => {
  const note = (id: string, status: string, at: string, body: string) => update({ id, status, body, created_at: at });
  const window = (status: string, updatedAt: string, updates: Record<string, unknown>[]) =>
    incident({
      id: 'yqhmf0mdn6bj',
      name: 'Database upgrade',
      status,
      impact: 'maintenance',
      created_at: '2025-01-10T00:00:00.000Z',
      updated_at: updatedAt,
      scheduled_for: '2025-01-18T04:00:00.000Z',
      scheduled_until: '2025-01-18T05:10:00.000Z',
      updates,
    });
  const n1 = note('m1', 'scheduled', '2025-01-10T00:00:00.000Z', 'Scheduled.');
  const n2 = note('m2', 'scheduled', '2025-01-18T03:00:00.000Z', 'Will begin in 60 minutes.');
  const n3 = note('m3', 'in_progress', '2025-01-18T04:00:00.000Z', 'In progress.');
  const n4 = note('m4', 'verifying', '2025-01-18T05:00:00.000Z', 'Verifying.');
  const n5 = note('m5', 'completed', '2025-01-18T05:30:00.000Z', 'Completed.');

  it('goes scheduled -> active (in progress, verifying) -> completed, with its window kept', () => {
    const archive: Archive = new Map();
    const read = (body: Record<string, unknown>) => ({ maintenances: parseMaintenances(maintenancesText([body])).scheduledMaintenances.items });
    poll(archive, read(window('scheduled', '2025-01-18T03:00:00.000Z', [n1, n2])));
    expect(archive.get('bitbucket:yqhmf0mdn6bj')).toMatchObject({ type: 'maintenance', status: 'scheduled', kind: 'maintenance' });
    expect((archive.get('bitbucket:yqhmf0mdn6bj') as unknown as SourceIncident).scheduledUntil?.ms).toBe(Date.UTC(2025, 0, 18, 5, 10));
    const started = poll(archive, read(window('in_progress', '2025-01-18T04:00:00.000Z', [n1, n2, n3])));
    expect(started.events.map((e) => e.type)).toEqual(['incident.status_changed', 'incident.note_added']);
    expect(started.events[0]?.data).toMatchObject({ from: 'scheduled', to: 'active' });
    const verifying = poll(archive, read(window('verifying', '2025-01-18T05:00:00.000Z', [n1, n2, n3, n4])));
    expect(verifying.events.map((e) => e.type)).toEqual(['incident.note_added']);
    // Past scheduled_until and still verifying: the window is advisory, not the end.
    expect(archive.get('bitbucket:yqhmf0mdn6bj')).toMatchObject({ status: 'active', resolvedAt: null });
    const done = poll(archive, read(window('completed', '2025-01-18T05:30:00.000Z', [n1, n2, n3, n4, n5])));
    expect(done.events[0]?.data).toMatchObject({ type: 'incident.status_changed', from: 'active', to: 'completed' });
  });
});

describe('statuses, impacts and components', () => {
  it('maps every documented status and impact, and keeps what it does not know as unknown', () => {
    const k = (value: string) => ({ value, vendor: value }) as never;
    expect(['investigating', 'identified', 'monitoring', 'resolved', 'postmortem'].map((s) => ourStatus(k(s)))).toEqual([
      'active',
      'active',
      'active',
      'resolved',
      'resolved',
    ]);
    expect(['scheduled', 'in_progress', 'verifying', 'completed'].map((s) => ourStatus(k(s)))).toEqual(['scheduled', 'active', 'active', 'completed']);
    expect(ourStatus({ value: 'unknown', vendor: 'escalated' })).toBe('unknown');
    expect(['critical', 'major', 'minor', 'none', 'maintenance'].map((i) => ourType('incident', k(i)))).toEqual([
      'outage',
      'outage',
      'incident',
      'notice',
      'notice',
    ]);
    expect(ourType('incident', { value: 'unknown', vendor: 'catastrophic' })).toBe('incident');
    expect(ourType('maintenance', k('major'))).toBe('maintenance');
  });

  it('names affected components by their id and today name, with the group when names repeat', () => {
    const summary = parseSummary(
      summaryText({
        components: [
          component({ id: 'ams', name: 'Global', status: 'major_outage', group_id: 'gdrop' }),
          component({ id: 'nyc', name: 'Global', status: 'operational', group_id: 'gapps' }),
          component({ id: 'con', name: 'Claude Console (platform.claude.com)', status: 'operational' }),
          component({ id: 'gdrop', name: 'Droplets', status: 'major_outage', group: true, children: ['ams'] }),
          component({ id: 'gapps', name: 'App Platform', status: 'operational', group: true, children: ['nyc'] }),
        ],
        incidents: [
          incident({
            id: '7pxx131dr1qt',
            name: 'Droplet creation failing',
            status: 'identified',
            created_at: '2026-02-26T19:00:00.000Z',
            updated_at: '2026-02-26T19:30:00.000Z',
            components: [{ id: 'ams', name: 'Global', status: 'major_outage' }],
            updates: [
              update({
                id: 'a1',
                status: 'identified',
                body: 'Console too.',
                created_at: '2026-02-26T19:30:00.000Z',
                affected: [{ code: 'con', name: 'console.anthropic.com', old_status: 'operational', new_status: 'operational' }],
              }),
            ],
          }),
        ],
      }),
    );
    const [mapped] = observedIncidents('do', { summary }, componentDirectory(summary.components.items));
    expect(mapped?.componentIds).toEqual(['ams', 'con']);
    expect(mapped?.services).toEqual(['Droplets / Global', 'Claude Console (platform.claude.com)']);
  });

  it('sees a component flipped without an incident as a change, and an unchanged one as none', () => {
    const before = componentStates(parseSummary(summaryText({ components: COMPONENTS })).components.items);
    const after = componentStates(
      parseSummary(
        summaryText({
          components: [
            component({ id: 'cpipe', name: 'Pipelines', status: 'partial_outage' }),
            component({ id: 'cweb', name: 'Website', status: 'degraded_performance' }),
          ],
        }),
      ).components.items,
    );
    expect(componentChanges(new Map(before.map((c) => [c.id, c])), after)).toEqual([
      { id: 'cweb', name: 'Website', from: 'operational', to: 'degraded_performance' },
    ]);
    expect(componentChanges(new Map(), before).map((c) => c.from)).toEqual([null, null]);
    expect(componentChanges(new Map(after.map((c) => [c.id, c])), after.slice(0, 1))).toEqual([]);
  });
});
