/**
 * Three simulated pages in the Statuspage format for the demo and `simulate --statuspage`, each a
 * vendor of its own with a story of its own, told in the shapes real pages serve: a code host
 * whose incident gains a note, is resolved and has its resolved update rewritten later with the
 * cause (as code hosts do); a cloud provider whose groups are listed after their children, with
 * children of the same name, and a scheduled maintenance that runs its course (a reminder note,
 * in progress with components under maintenance, verifying, completed); a payments page whose
 * component flips to degraded and back with no incident at all. The text and ids are our own.
 */
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from './app.ts';
import { editLatestUpdate, moveComponents, open, progress, type SpStep } from './story.ts';
import type { SpSimComponent, SpSimIncident, SpSimWorld } from './world.ts';

export type DemoStatuspage = {
  /** What the page stands for, as the demo prints it. */
  kind: string;
  name: string;
  initial(nowMs: number): SpSimWorld;
  steps: readonly SpStep[];
};

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

function component(id: string, name: string, position: number, atMs: number, groupId: string | null = null, children: string[] | null = null): SpSimComponent {
  return { id, name, status: 'operational', position, groupId, children, updatedMs: atMs };
}

/** A resolved incident of the page's past: history the first poll backfills. */
function pastIncident(
  id: string,
  name: string,
  impact: string,
  startMs: number,
  componentIds: string[],
  notes: Array<{ id: string; status: string; body: string; afterMs: number; editedAfterMs?: number }>,
): SpSimIncident {
  const last = notes.at(-1)!;
  const endMs = startMs + last.afterMs;
  return {
    id,
    name,
    status: 'resolved',
    impact,
    createdMs: startMs,
    updatedMs: startMs + Math.max(...notes.map((n) => n.editedAfterMs ?? n.afterMs)),
    resolvedMs: endMs,
    componentIds,
    updates: notes.map((n) => ({
      id: n.id,
      status: n.status,
      body: n.body,
      createdMs: startMs + n.afterMs,
      updatedMs: startMs + (n.editedAfterMs ?? n.afterMs),
      affected: null,
    })),
  };
}

// The code host: a flat list of components, one of them not a service at all.
export const GITFORGE_INCIDENT_ID = 'gfinc0000001';
const GF_GIT = 'gfcmpgit0001';
const GF_API = 'gfcmpapi0001';
const GF_WEB = 'gfcmpweb0001';
const GF_CI = 'gfcmpci00001';
const GF_HOOKS = 'gfcmphook001';

const gitforge: DemoStatuspage = {
  kind: 'code host',
  name: 'Gitforge',
  initial(nowMs) {
    const atMs = nowMs - 20 * DAY_MS;
    return {
      page: { id: 'gfpage000001', name: 'Gitforge', url: 'https://status.gitforge.example', timeZone: 'Etc/UTC' },
      components: [
        component(GF_GIT, 'Git over SSH and HTTPS', 1, atMs),
        component(GF_API, 'API requests', 2, atMs),
        component(GF_WEB, 'Web pages', 3, atMs),
        component(GF_CI, 'CI runners', 4, atMs),
        component(GF_HOOKS, 'Webhooks', 5, atMs),
        component('gfcmpinfo001', 'Visit status.gitforge.example for more information', 6, atMs),
      ],
      incidents: [
        pastIncident(
          'gfinc0000000',
          'Delays in webhook delivery',
          'none',
          atMs,
          [],
          [
            { id: 'gfupd0000001', status: 'investigating', body: 'We are investigating reports of delayed webhook deliveries.', afterMs: 0 },
            {
              id: 'gfupd0000002',
              status: 'resolved',
              body: 'Webhook deliveries are on time again. A backlog built up while a queue node restarted; it has drained.',
              afterMs: 2 * HOUR_MS,
              // Rewritten a day later, as code hosts do with their final update.
              editedAfterMs: 26 * HOUR_MS,
            },
          ],
        ),
      ],
      maintenances: [],
      updatedMs: atMs + 26 * HOUR_MS,
    };
  },
  steps: [
    {
      name: 'incident opens: CI runners degraded',
      apply: open(
        'incidents',
        (nowMs) => ({
          id: GITFORGE_INCIDENT_ID,
          name: 'Incident with CI runners',
          status: 'investigating',
          impact: 'minor',
          createdMs: nowMs,
          updatedMs: nowMs,
          resolvedMs: null,
          componentIds: [GF_CI],
          updates: [
            {
              id: 'gfupdopen001',
              status: 'investigating',
              body: 'We are investigating reports of degraded performance for CI runners.',
              createdMs: nowMs,
              updatedMs: nowMs,
              affected: [{ code: GF_CI, oldStatus: 'operational', newStatus: 'degraded_performance' }],
            },
          ],
        }),
        { id: GF_CI, status: 'degraded_performance' },
      ),
    },
    {
      name: 'a note, still investigating',
      apply: progress('incidents', GITFORGE_INCIDENT_ID, 'investigating', 'Queued jobs wait up to 12 minutes to start. We are adding runner capacity.'),
    },
    {
      name: 'monitoring, CI runners back',
      apply: progress('incidents', GITFORGE_INCIDENT_ID, 'monitoring', 'Jobs start normally again. We are monitoring the recovery.', {
        id: GF_CI,
        status: 'operational',
      }),
    },
    { name: 'resolved', apply: progress('incidents', GITFORGE_INCIDENT_ID, 'resolved', 'This incident has been resolved.') },
    {
      name: 'the resolved update rewritten with the cause',
      apply: editLatestUpdate(
        'incidents',
        GITFORGE_INCIDENT_ID,
        'A change to the autoscaling limits kept new runners from joining the pool; the limits are back to their usual values.',
      ),
    },
  ],
};

// The cloud provider: children before their groups, several children of the same name.
export const NIMBUS_MAINTENANCE_ID = 'nbmnt0000001';
const NB_COMPUTE = 'nbgrpcomp001';
const NB_STORAGE = 'nbgrpstor001';
const NB_COMPUTE_FRA = 'nbcmpcfra001';
const NB_COMPUTE_NYC = 'nbcmpcnyc001';
const NB_STORAGE_FRA = 'nbcmpsfra001';
const NB_STORAGE_NYC = 'nbcmpsnyc001';

const nimbus: DemoStatuspage = {
  kind: 'cloud provider',
  name: 'Nimbus Cloud',
  initial(nowMs) {
    const atMs = nowMs - 30 * DAY_MS;
    return {
      page: { id: 'nbpage000001', name: 'Nimbus Cloud', url: 'https://status.nimbus-cloud.example', timeZone: 'Etc/UTC' },
      components: [
        component(NB_COMPUTE_FRA, 'FRA1', 1, atMs, NB_COMPUTE),
        component(NB_COMPUTE_NYC, 'NYC3', 2, atMs, NB_COMPUTE),
        component(NB_STORAGE_FRA, 'FRA1', 1, atMs, NB_STORAGE),
        component(NB_STORAGE_NYC, 'NYC3', 2, atMs, NB_STORAGE),
        component('nbcmpdns0001', 'DNS', 3, atMs),
        component(NB_COMPUTE, 'Compute', 1, atMs, null, [NB_COMPUTE_FRA, NB_COMPUTE_NYC]),
        component(NB_STORAGE, 'Object Storage', 2, atMs, null, [NB_STORAGE_FRA, NB_STORAGE_NYC]),
      ],
      incidents: [
        pastIncident(
          'nbinc0000000',
          'Object Storage errors in NYC3',
          'major',
          atMs,
          [NB_STORAGE_NYC],
          [
            { id: 'nbupd0000001', status: 'investigating', body: 'Some requests to Object Storage in NYC3 fail with 503 errors.', afterMs: 0 },
            { id: 'nbupd0000002', status: 'identified', body: 'A storage node ran out of disk; we are moving data off it.', afterMs: HOUR_MS },
            { id: 'nbupd0000003', status: 'resolved', body: 'Requests succeed again. No data was lost.', afterMs: 3 * HOUR_MS },
          ],
        ),
      ],
      maintenances: [],
      updatedMs: atMs + 3 * HOUR_MS,
    };
  },
  steps: [
    {
      name: 'maintenance scheduled',
      apply: open('maintenances', (nowMs) => ({
        id: NIMBUS_MAINTENANCE_ID,
        name: 'Network maintenance in FRA1',
        status: 'scheduled',
        impact: 'maintenance',
        createdMs: nowMs,
        updatedMs: nowMs,
        resolvedMs: null,
        componentIds: [NB_COMPUTE_FRA, NB_STORAGE_FRA],
        updates: [
          {
            id: 'nbupdmnt0001',
            status: 'scheduled',
            body: 'We will replace core network switches in FRA1.\r\n\r\nRunning servers stay up; expect packet loss of a few seconds while traffic moves.',
            createdMs: nowMs,
            updatedMs: nowMs,
            affected: null,
          },
        ],
        // Hand-entered: whole minutes, as the window's times are on real pages.
        scheduledForMs: Math.ceil((nowMs + 2 * HOUR_MS) / 60_000) * 60_000,
        scheduledUntilMs: Math.ceil((nowMs + 4 * HOUR_MS) / 60_000) * 60_000,
      })),
    },
    {
      name: 'a reminder, still scheduled',
      apply: progress('maintenances', NIMBUS_MAINTENANCE_ID, 'scheduled', 'Reminder: this maintenance begins in 60 minutes.'),
    },
    {
      name: 'in progress, FRA1 under maintenance',
      apply: progress('maintenances', NIMBUS_MAINTENANCE_ID, 'in_progress', 'The maintenance has begun. We will post here when it is done.', [
        { id: NB_COMPUTE_FRA, status: 'under_maintenance' },
        { id: NB_STORAGE_FRA, status: 'under_maintenance' },
      ]),
    },
    {
      name: 'verifying, FRA1 back',
      apply: progress('maintenances', NIMBUS_MAINTENANCE_ID, 'verifying', 'The switches are replaced; we are checking traffic in FRA1.', [
        { id: NB_COMPUTE_FRA, status: 'operational' },
        { id: NB_STORAGE_FRA, status: 'operational' },
      ]),
    },
    { name: 'completed', apply: progress('maintenances', NIMBUS_MAINTENANCE_ID, 'completed', 'The maintenance has been completed.') },
  ],
};

// The payments page: a component flips with no incident, as vendors often do.
export const PAYSTREAM_PAYOUTS_ID = 'pscmppay0001';

const paystream: DemoStatuspage = {
  kind: 'payments',
  name: 'Paystream',
  initial(nowMs) {
    const atMs = nowMs - 12 * DAY_MS;
    return {
      page: { id: 'pspage000001', name: 'Paystream', url: 'https://status.paystream.example', timeZone: 'Etc/UTC' },
      components: [
        component('pscmpcard001', 'Card payments', 1, atMs),
        component(PAYSTREAM_PAYOUTS_ID, 'Payouts', 2, atMs),
        component('pscmpapi0001', 'API', 3, atMs),
        component('pscmpdash001', 'Dashboard', 4, atMs),
      ],
      incidents: [
        pastIncident(
          'psinc0000000',
          'Payout reports arrive late',
          'minor',
          atMs,
          [PAYSTREAM_PAYOUTS_ID],
          [
            {
              id: 'psupd0000001',
              status: 'identified',
              body: 'Daily payout reports are running about two hours late. Payouts themselves are on time.',
              afterMs: 0,
            },
            { id: 'psupd0000002', status: 'resolved', body: 'All reports have been delivered.', afterMs: 5 * HOUR_MS },
          ],
        ),
      ],
      maintenances: [],
      updatedMs: atMs + 5 * HOUR_MS,
    };
  },
  steps: [
    { name: 'Payouts degraded without an incident', apply: moveComponents({ id: PAYSTREAM_PAYOUTS_ID, status: 'degraded_performance' }) },
    { name: 'Payouts back without an incident', apply: moveComponents({ id: PAYSTREAM_PAYOUTS_ID, status: 'operational' }) },
  ],
};

export const DEMO_STATUSPAGES: readonly DemoStatuspage[] = [gitforge, nimbus, paystream];

/** One demo page's story, to serve it alone (tests serve the page they need). */
export function demoStatuspageStory(name: string): Pick<DemoStatuspage, 'name' | 'initial' | 'steps'> | null {
  const page = DEMO_STATUSPAGES.find((p) => p.name === name);
  return page ? { name: page.name, initial: page.initial, steps: page.steps } : null;
}

export type RunningDemoStatuspage = RunningSimulatedStatuspage & { kind: string; name: string };

/**
 * Serves every demo page, each on its own port as each vendor has its own host: from `firstPort`
 * on, or free ports when it is 0. A page that cannot listen closes the ones already serving.
 */
export async function startDemoStatuspages(options: { host?: string; firstPort?: number; autoAdvanceMs?: number }): Promise<RunningDemoStatuspage[]> {
  const running: RunningDemoStatuspage[] = [];
  try {
    for (const [index, page] of DEMO_STATUSPAGES.entries()) {
      const port = options.firstPort ? options.firstPort + index : 0;
      const served = await startSimulatedStatuspage({
        host: options.host,
        port,
        initial: page.initial,
        steps: page.steps,
        autoAdvanceMs: options.autoAdvanceMs,
      });
      running.push({ ...served, kind: page.kind, name: page.name });
    }
    return running;
  } catch (error) {
    for (const page of running) await page.close();
    throw error;
  }
}
