/**
 * The simulated page's story, one step at a time: an incident that goes investigating ->
 * identified -> monitoring -> investigating -> resolved, has its resolved update edited in place
 * and gains a postmortem; a component that flips without an incident and back; a maintenance
 * scheduled -> in_progress -> verifying -> completed. Every step copies the world (never mutates
 * it), so rendered bodies can be reused while the world is the same object.
 */
import type { SpSimComponent, SpSimIncident, SpSimUpdate, SpSimWorld } from './world.ts';

export type SpStep = { name: string; apply(world: SpSimWorld, nowMs: number): SpSimWorld };

export const STORY_INCIDENT_ID = 'swinc0000001';
export const STORY_MAINTENANCE_ID = 'swmnt0000001';
const API = 'swcmpapi0001';
const WEBSITE = 'swcmpweb0001';
const DATABASE = 'swcmpdb00001';

export function initialSpWorld(nowMs: number, name = 'Acme Cloud'): SpSimWorld {
  const atMs = nowMs - 30 * 86_400_000;
  const c = (id: string, componentName: string, position: number, groupId: string | null = null, children: string[] | null = null): SpSimComponent => ({
    id,
    name: componentName,
    status: 'operational',
    position,
    groupId,
    children,
    updatedMs: atMs,
  });
  return {
    page: { id: 'swpage000001', name, url: 'https://status.acme.example', timeZone: 'Etc/UTC' },
    components: [
      c(API, 'API', 1, 'swgrpcore001'),
      c(WEBSITE, 'Website', 2),
      c(DATABASE, 'Database', 1, 'swgrpcore001'),
      c('swgrpcore001', 'Core', 3, null, [API, DATABASE]),
    ],
    // One resolved incident a month old: history a first poll backfills.
    incidents: [
      {
        id: 'swinc0000000',
        name: 'Delayed webhooks',
        status: 'resolved',
        impact: 'minor',
        createdMs: atMs,
        updatedMs: atMs + 3_600_000,
        resolvedMs: atMs + 3_600_000,
        componentIds: [API],
        updates: [
          { id: 'swupd0000001', status: 'investigating', body: 'Webhooks are delayed.', createdMs: atMs, updatedMs: atMs, affected: null },
          {
            id: 'swupd0000002',
            status: 'resolved',
            body: 'Webhooks are on time again.',
            createdMs: atMs + 3_600_000,
            updatedMs: atMs + 3_600_000,
            affected: null,
          },
        ],
      },
    ],
    maintenances: [],
    updatedMs: atMs + 3_600_000,
  };
}

/** A component moved by a step: to this state, at the step's time. */
export type ComponentMove = { id: string; status: string };

const movesOf = (moves: ComponentMove | readonly ComponentMove[] | undefined): readonly ComponentMove[] =>
  moves === undefined ? [] : Array.isArray(moves) ? moves : [moves as ComponentMove];

const setComponents = (world: SpSimWorld, moves: readonly ComponentMove[], nowMs: number): SpSimComponent[] =>
  world.components.map((c) => {
    const move = moves.find((m) => m.id === c.id);
    return move ? { ...c, status: move.status, updatedMs: nowMs } : c;
  });

const statusOf = (world: SpSimWorld, id: string): string => world.components.find((c) => c.id === id)?.status ?? 'operational';

/** A step that moves components and nothing else: the vendor flips a component without an incident. */
export function moveComponents(moves: ComponentMove | readonly ComponentMove[]) {
  return (world: SpSimWorld, nowMs: number): SpSimWorld => ({ ...world, components: setComponents(world, movesOf(moves), nowMs), updatedMs: nowMs });
}

/** A new update on an incident (or maintenance), with the components moving as it says. */
export function progress(list: 'incidents' | 'maintenances', id: string, status: string, body: string, moves?: ComponentMove | readonly ComponentMove[]) {
  return (world: SpSimWorld, nowMs: number): SpSimWorld => {
    // Counted over the whole world: unique and the same on every run.
    const count = [...world.incidents, ...world.maintenances].reduce((sum, i) => sum + i.updates.length, 0);
    const updateId = `swupd${String(count + 1).padStart(7, '0')}`;
    const moved = movesOf(moves);
    const affected = moved.length > 0 ? moved.map((m) => ({ code: m.id, oldStatus: statusOf(world, m.id), newStatus: m.status })) : null;
    const update: SpSimUpdate = { id: updateId, status, body, createdMs: nowMs, updatedMs: nowMs, affected };
    const done = status === 'resolved' || status === 'completed';
    const items = world[list].map((i) =>
      i.id === id ? { ...i, status, updatedMs: nowMs, resolvedMs: done ? nowMs : i.resolvedMs, updates: [...i.updates, update] } : i,
    );
    return { ...world, [list]: items, components: setComponents(world, moved, nowMs), updatedMs: nowMs };
  };
}

/** A new incident (or maintenance) on the page, with the components moving as it says. */
export function open(list: 'incidents' | 'maintenances', item: (nowMs: number) => SpSimIncident, moves?: ComponentMove | readonly ComponentMove[]) {
  return (world: SpSimWorld, nowMs: number): SpSimWorld => ({
    ...world,
    [list]: [...world[list].filter((i) => i.id !== item(nowMs).id), item(nowMs)],
    components: setComponents(world, movesOf(moves), nowMs),
    updatedMs: nowMs,
  });
}

/** The vendor rewrites an update in place (same id, later updated_at): here the newest one, with text added. */
export function editLatestUpdate(list: 'incidents' | 'maintenances', id: string, addedText: string) {
  return (world: SpSimWorld, nowMs: number): SpSimWorld => ({
    ...world,
    [list]: world[list].map((i) => {
      if (i.id !== id) return i;
      const last = i.updates.at(-1);
      const updates = i.updates.map((u) => (u === last ? { ...u, body: `${u.body} ${addedText}`, updatedMs: nowMs } : u));
      return { ...i, updates, updatedMs: nowMs };
    }),
    updatedMs: nowMs,
  });
}

export const spStory: readonly SpStep[] = [
  {
    name: 'incident opens: investigating, API partially out',
    apply: open(
      'incidents',
      (nowMs) => ({
        id: STORY_INCIDENT_ID,
        name: 'Elevated API error rates',
        status: 'investigating',
        impact: 'major',
        createdMs: nowMs,
        updatedMs: nowMs,
        resolvedMs: null,
        componentIds: [API],
        updates: [
          {
            id: 'swupdopen0001',
            status: 'investigating',
            body: 'We are investigating elevated error rates on the API.',
            createdMs: nowMs,
            updatedMs: nowMs,
            affected: [{ code: API, oldStatus: 'operational', newStatus: 'partial_outage' }],
          },
        ],
      }),
      { id: API, status: 'partial_outage' },
    ),
  },
  { name: 'identified', apply: progress('incidents', STORY_INCIDENT_ID, 'identified', 'The cause is a faulty deploy; we are rolling it back.') },
  {
    name: 'monitoring, API back',
    apply: progress('incidents', STORY_INCIDENT_ID, 'monitoring', 'The rollback is done; we are monitoring.', { id: API, status: 'operational' }),
  },
  {
    name: 'back to investigating, API out again',
    apply: progress('incidents', STORY_INCIDENT_ID, 'investigating', 'Errors are back; we are investigating again.', { id: API, status: 'partial_outage' }),
  },
  { name: 'resolved', apply: progress('incidents', STORY_INCIDENT_ID, 'resolved', 'This incident has been resolved.', { id: API, status: 'operational' }) },
  { name: 'the resolved update edited in place', apply: editLatestUpdate('incidents', STORY_INCIDENT_ID, 'Root cause: a connection pool limit set too low.') },
  {
    name: 'postmortem',
    apply: progress('incidents', STORY_INCIDENT_ID, 'postmortem', '### Postmortem\n\nA connection pool limit was set too low during the deploy.'),
  },
  { name: 'Website degraded without an incident', apply: moveComponents({ id: WEBSITE, status: 'degraded_performance' }) },
  { name: 'Website back without an incident', apply: moveComponents({ id: WEBSITE, status: 'operational' }) },
  {
    name: 'maintenance scheduled',
    apply: open('maintenances', (nowMs) => ({
      id: STORY_MAINTENANCE_ID,
      name: 'Database upgrade',
      status: 'scheduled',
      impact: 'maintenance',
      createdMs: nowMs,
      updatedMs: nowMs,
      resolvedMs: null,
      componentIds: [DATABASE],
      updates: [{ id: 'swupdmnt0001', status: 'scheduled', body: 'We will upgrade the database.', createdMs: nowMs, updatedMs: nowMs, affected: null }],
      scheduledForMs: nowMs + 3_600_000,
      scheduledUntilMs: nowMs + 2 * 3_600_000,
    })),
  },
  {
    name: 'maintenance in progress, Database under maintenance',
    apply: progress('maintenances', STORY_MAINTENANCE_ID, 'in_progress', 'The upgrade is in progress.', { id: DATABASE, status: 'under_maintenance' }),
  },
  { name: 'maintenance verifying', apply: progress('maintenances', STORY_MAINTENANCE_ID, 'verifying', 'The upgrade is done; we are verifying.') },
  {
    name: 'maintenance completed',
    apply: progress('maintenances', STORY_MAINTENANCE_ID, 'completed', 'The maintenance has been completed.', { id: DATABASE, status: 'operational' }),
  },
];
