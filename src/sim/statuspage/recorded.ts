/**
 * Replaying recorded bodies through the simulated page: each step serves one capture (a summary,
 * and the incidents and maintenances lists where the capture has them) byte for byte. An endpoint
 * the capture lacks is made from the capture's other bodies, showing only what they show: the
 * lists hold the summary's open items, and a summary made from the lists holds their open items
 * and no component. A replay never shows an item, a state or a resolution that was not recorded.
 */
import { parseJsonText } from '../../core/statuspage/schema.ts';
import type { SpStep } from './story.ts';
import type { SpRecordedBodies } from './world.ts';

export type SpCapture = { name: string } & SpRecordedBodies;

type Json = Record<string, unknown>;

const INCIDENT_DONE = new Set(['resolved', 'postmortem']);
const MAINTENANCE_DONE = new Set(['completed']);

/** Parsed with big tweet ids kept as text, and written back as the numbers they were. */
const read = (text: string): Json => parseJsonText(text) as Json;
const write = (value: Json): string => JSON.stringify(value).replace(/("tweet_id":)"(-?\d+)"/g, '$1$2');
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const openOnly = (items: Json[], done: Set<string>) => items.filter((i) => !done.has(String(i.status)));

/** The body of one endpoint at this step: as recorded, or made from the step's other bodies. */
export function recordedBody(endpoint: keyof SpRecordedBodies, bodies: SpRecordedBodies): string {
  const recorded = bodies[endpoint];
  if (recorded !== undefined) return recorded;
  if (bodies.summary !== undefined) {
    const summary = read(bodies.summary);
    if (endpoint === 'incidents') return write({ page: summary.page, incidents: list(summary.incidents) });
    return write({ page: summary.page, scheduled_maintenances: list(summary.scheduled_maintenances) });
  }
  const incidents = bodies.incidents === undefined ? undefined : read(bodies.incidents);
  const maintenances = bodies['scheduled-maintenances'] === undefined ? undefined : read(bodies['scheduled-maintenances']);
  const page = incidents?.page ?? maintenances?.page;
  if (endpoint === 'incidents') return write({ page, incidents: [] });
  if (endpoint === 'scheduled-maintenances') return write({ page, scheduled_maintenances: [] });
  return write({
    page,
    components: [],
    incidents: openOnly(list(incidents?.incidents), INCIDENT_DONE),
    scheduled_maintenances: openOnly(list(maintenances?.scheduled_maintenances), MAINTENANCE_DONE),
    status: { indicator: 'none', description: 'All Systems Operational' },
  });
}

/** One step per capture, in the order given: the page serves that capture from then on. */
export function recordedSteps(captures: readonly SpCapture[]): SpStep[] {
  return captures.map(({ name, ...bodies }) => ({
    name,
    apply: (world, nowMs) => ({ ...world, recorded: bodies, updatedMs: nowMs }),
  }));
}
