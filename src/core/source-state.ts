/**
 * A watched page's state in statuswatch's one vocabulary (widget-state.ts: Operational, Degraded,
 * Outage, Maintenance, Unknown): each component's from the page's own word, and the page's as a
 * whole from its components and ongoing incidents. Blind, it is unknown, whatever was last read.
 * Pure.
 */
import type { Knowledge } from './knowledge.ts';
import type { Incident } from './incident.ts';
import type { ComponentStatus } from './statuspage/schema.ts';
import { incidentState, type WidgetState, worstState } from './widget-state.ts';

/**
 * A component's state for the page's own word. A partial outage is an outage of part of the
 * component: shown as an outage, with the page's own words beside it (COMPONENT_STATUS_WORDS).
 */
const COMPONENT_STATES: Record<ComponentStatus | 'unknown', WidgetState> = {
  operational: 'ok',
  degraded_performance: 'incident',
  partial_outage: 'outage',
  major_outage: 'outage',
  under_maintenance: 'maintenance',
  unknown: 'unknown',
};

/** The page's own word for a component's state, spelt out for people (the vendor's word, not ours). */
export const COMPONENT_STATUS_WORDS: Record<ComponentStatus | 'unknown', string> = {
  operational: 'operational',
  degraded_performance: 'degraded performance',
  partial_outage: 'partial outage',
  major_outage: 'major outage',
  under_maintenance: 'under maintenance',
  unknown: 'a state statuswatch does not know',
};

export function componentState(status: ComponentStatus | 'unknown', known: boolean): WidgetState {
  return known ? COMPONENT_STATES[status] : 'unknown';
}

/**
 * The page as a whole: the worst of its components (groups are their children's, so not counted
 * twice) and of its ongoing incidents; `unknown` while blind or never read.
 */
export function sourceState(input: {
  knowledge: Knowledge;
  components: readonly { status: ComponentStatus | 'unknown'; isGroup: boolean }[];
  ongoing: readonly Pick<Incident, 'type' | 'status'>[];
}): WidgetState {
  if (input.knowledge.kind !== 'known') return 'unknown';
  return worstState([
    ...input.components.filter((c) => !c.isGroup).map((c) => COMPONENT_STATES[c.status]),
    ...input.ongoing.map((incident) => incidentState(incident)),
  ]);
}
