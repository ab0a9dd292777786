/** The demo's scenario: a realistic seeded history, then two overlapping incidents that evolve and resolve, on a loop. */
import { incidentUrl } from './incident-url.ts';
import type { Scenario, ScenarioStep, StepContext } from './scenario.ts';
import { addNote, changeStatus, editNoteBody, editTitle, openIncident, touch } from './world-edits.ts';
import type { SimIncident } from './world.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

type SeedNote = { afterMs: number; body: string };
type Seed = Omit<SimIncident, 'url' | 'dateCreatedMs' | 'dateUpdatedMs' | 'notes'> & {
  daysAgo: number;
  notes: SeedNote[];
  /** date_updated after the last note, for the incidents where the vendor touched it later. */
  updatedAfterMs?: number;
};

// Bodies mimic the 2026 feed: HTML fragments with &nbsp;, <br>, odd <strong> placement, a trailing
// <p><br></p>, curly apostrophes, and &amp; in bodies while titles carry a raw "&".
const SEEDS: readonly Seed[] = [
  {
    id: 1540,
    daysAgo: 200, // beyond the 183-day window: the history endpoint has already forgotten it
    title: 'Some users may be unable to sign in',
    type: 'incident',
    status: 'resolved',
    services: ['Login/SSO'],
    notes: [
      { afterMs: 0, body: '<p>Some users are unable to sign in to Slack. We\u2019re investigating.</p>' },
      { afterMs: 50 * MINUTE_MS, body: '<p>Sign-in is working normally again.</p>' },
    ],
  },
  {
    id: 1551,
    daysAgo: 160,
    title: 'Huddles failing to connect for some users',
    type: 'incident',
    status: 'resolved',
    services: ['Huddles'],
    notes: [
      {
        afterMs: 0,
        body: '<p>Some users may be unable to join huddles.&nbsp;<br><br>We\u2019ll provide an update in 30 minutes or sooner.</p>',
      },
      { afterMs: 35 * MINUTE_MS, body: '<p>We\u2019ve identified the cause and are deploying a fix.&nbsp;</p>' },
      { afterMs: 90 * MINUTE_MS, body: '<p>Huddles are connecting normally again.</p><p><br></p>' },
    ],
  },
  {
    id: 1553,
    daysAgo: 131,
    title: 'Messages are failing to send',
    type: 'outage',
    status: 'resolved',
    services: ['Messaging', 'Connectivity'],
    notes: [
      { afterMs: 0, body: '<p><strong>Users are unable to send messages or connect to Slack.</strong></p>' },
      { afterMs: 20 * MINUTE_MS, body: '<p>A configuration change has been rolled back.<br>Connections are recovering.</p>' },
      { afterMs: 75 * MINUTE_MS, body: '<p>All services are restored.&nbsp;We apologize for the disruption.</p>' },
    ],
  },
  {
    id: 1554,
    daysAgo: 117,
    title: 'Scheduled maintenance for Workflows',
    type: 'notice',
    status: 'resolved',
    services: ['Workflows'],
    notes: [
      { afterMs: 0, body: '<p>Workflows may run with a delay during planned maintenance.</p>' },
      { afterMs: 2 * HOUR_MS, body: '<p>Maintenance is complete.</p>' },
    ],
  },
  {
    id: 1556,
    daysAgo: 96,
    title: 'Search & Files are slow to load',
    type: 'incident',
    status: 'resolved',
    services: ['Search', 'Files'],
    notes: [
      { afterMs: 0, body: '<p>Search &amp; file previews are loading slowly for some users.</p>' },
      { afterMs: 40 * MINUTE_MS, body: '<p>T<strong>he issue is resolved.</strong>&nbsp;</p><p><br></p>' },
    ],
  },
  // 1559 was created before 1558: ids are not in time order on the real feed either.
  {
    id: 1559,
    daysAgo: 70,
    title: 'Some apps may fail to load',
    type: 'incident',
    status: 'resolved',
    services: ['Apps/Integrations/APIs'],
    notes: [
      { afterMs: 0, body: '<p>Some apps and integrations fail to load in Slack.</p>' },
      { afterMs: 55 * MINUTE_MS, body: '<p>Apps are loading normally.</p>' },
    ],
  },
  {
    id: 1558,
    daysAgo: 64,
    title: 'Degraded performance for some users',
    type: 'incident',
    status: 'resolved',
    services: [], // the vendor sometimes names no service at all
    notes: [
      { afterMs: 0, body: '<p>Some users may see Slack loading slowly.</p>' },
      { afterMs: 30 * MINUTE_MS, body: '<ul><li>Performance is back to normal.</li></ul>' },
    ],
  },
  {
    id: 1561,
    daysAgo: 33,
    title: 'Notifications delayed',
    type: 'incident',
    status: 'resolved',
    services: ['Notifications'],
    notes: [
      { afterMs: 0, body: '<p>Some notifications are delayed.&nbsp;<br>We\u2019re looking into it.</p>' },
      { afterMs: 25 * MINUTE_MS, body: '<p>Notifications are delivered on time again.</p>' },
    ],
    updatedAfterMs: 19 * HOUR_MS,
  },
  {
    id: 1563,
    daysAgo: 9,
    title: 'Workspace admin pages not loading',
    type: 'incident',
    status: 'resolved',
    services: ['Workspace/Org Administration'],
    notes: [
      { afterMs: 0, body: '<p>Admins may be unable to open workspace settings.</p>' },
      { afterMs: 45 * MINUTE_MS, body: '<p><strong>Resolved:</strong> settings pages load again.</p>' },
    ],
  },
];

function seedIncident(seed: Seed, startMs: number): SimIncident {
  const createdMs = Math.floor((startMs - seed.daysAgo * DAY_MS) / 1000) * 1000;
  const notes = seed.notes.map((n) => ({ body: n.body, dateCreatedMs: createdMs + n.afterMs }));
  const lastNoteMs = Math.max(...notes.map((n) => n.dateCreatedMs));
  return {
    id: seed.id,
    title: seed.title,
    type: seed.type,
    status: seed.status,
    services: [...seed.services],
    url: incidentUrl(seed.id, createdMs),
    dateCreatedMs: createdMs,
    dateUpdatedMs: lastNoteMs + (seed.updatedAfterMs ?? 0),
    notes,
  };
}

// Each loop names its incidents differently so a long-running demo does not look stuck; each
// names the service its title is about.
const FIRST_INCIDENTS = [
  { titles: ['Some users are having trouble sending messages', 'Some users are having trouble sending and editing messages'], services: ['Messaging'] },
  { titles: ['Files may fail to upload', 'Files and images may fail to upload'], services: ['Files'] },
  { titles: ['Canvases are slow to open', 'Canvases and lists are slow to open'], services: ['Canvases'] },
] as const;

function firstIncidentFor(ctx: StepContext): (typeof FIRST_INCIDENTS)[number] {
  return FIRST_INCIDENTS[(ctx.cycle - 1) % FIRST_INCIDENTS.length] ?? FIRST_INCIDENTS[0];
}

const DEMO_STEPS: readonly ScenarioStep[] = [
  {
    name: 'incident-opens',
    apply(world, ctx) {
      const id = ctx.allocateId();
      ctx.roles.set('first', id);
      return openIncident(world, {
        id,
        title: firstIncidentFor(ctx).titles[0],
        type: 'incident',
        services: [...firstIncidentFor(ctx).services],
        firstNote: '<p>We\u2019re investigating reports of trouble for some users.&nbsp;<br><br>We\u2019ll provide an update in 30 minutes or sooner.</p>',
        atMs: ctx.nowMs,
      });
    },
  },
  {
    name: 'incident-second-note',
    apply: (world, ctx) => addNote(world, ctx.roles.get('first'), '<p>We\u2019ve identified the cause and are working on a fix.&nbsp;</p>', ctx.nowMs),
  },
  {
    name: 'incident-title-edited',
    apply: (world, ctx) => editTitle(world, ctx.roles.get('first'), firstIncidentFor(ctx).titles[1]),
  },
  {
    name: 'outage-opens',
    apply(world, ctx) {
      const id = ctx.allocateId();
      ctx.roles.set('outage', id);
      return openIncident(world, {
        id,
        title: 'Huddles and calls are unavailable',
        type: 'outage',
        services: ['Huddles', 'Connectivity'],
        firstNote: '<p><strong>Users can\u2019t start or join huddles.</strong> We\u2019re investigating.</p>',
        atMs: ctx.nowMs,
      });
    },
  },
  {
    name: 'outage-second-note',
    apply: (world, ctx) =>
      addNote(world, ctx.roles.get('outage'), '<p>A network change is being rolled back.<br>Some huddles are reconnecting.</p>', ctx.nowMs),
  },
  {
    name: 'outage-note-edited',
    apply: (world, ctx) =>
      editNoteBody(world, ctx.roles.get('outage'), 0, '<p><strong>Users can\u2019t start or join huddles &amp; calls.</strong> We\u2019re investigating.</p>'),
  },
  {
    name: 'incident-resolved',
    apply: (world, ctx) =>
      changeStatus(world, ctx.roles.get('first'), 'resolved', '<p>The issue is resolved. Thanks for your patience.</p><p><br></p>', ctx.nowMs),
  },
  {
    name: 'outage-resolved',
    apply: (world, ctx) =>
      changeStatus(world, ctx.roles.get('outage'), 'resolved', '<p>Huddles are fully restored.&nbsp;We apologize for the disruption.</p>', ctx.nowMs),
  },
  {
    name: 'incident-touched-after-resolution',
    apply: (world, ctx) => touch(world, ctx.roles.get('first'), ctx.nowMs),
  },
];

/** The demo scenario; `startMs` anchors the seeded history, which lies in the days before it. */
export function demoScenario(startMs: number): Scenario {
  return {
    name: 'demo',
    initialWorld: () => SEEDS.map((seed) => seedIncident(seed, startMs)),
    steps: DEMO_STEPS,
    loop: true,
  };
}
