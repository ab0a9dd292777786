/**
 * A watched page's state in statuswatch's one vocabulary (widget-state.ts: Operational, Degraded,
 * Outage, Maintenance, Unknown): each component's from the page's own word, and the page's as a
 * whole from its components and ongoing incidents. Blind, it is unknown, whatever was last read.
 * Pure.
 */
import type { Knowledge } from './knowledge.ts';
import type { Incident } from './incident.ts';
import type { ComponentStatus } from './statuspage/schema.ts';
import { overallState, statedState, type WidgetState, worstState } from './widget-state.ts';

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
 * The states a page gives its components now, by name: groups are left out (their state is their
 * children's, so not counted twice), and two components of one name (in different groups) count
 * as the worse of the two. Every face that counts a page's components reads them from here.
 */
export function sourceComponentStates(
  components: readonly { name: string; status: ComponentStatus | 'unknown'; isGroup: boolean }[],
): Map<string, WidgetState> {
  const byName = new Map<string, WidgetState>();
  for (const c of components) {
    if (c.isGroup) continue;
    const state = COMPONENT_STATES[c.status];
    const seen = byName.get(c.name);
    byName.set(c.name, seen === undefined ? state : worstState([seen, state]));
  }
  return byName;
}

/** The page as a whole (statedState over its components and ongoing incidents); `unknown` while blind or never read. */
export function sourceState(input: {
  knowledge: Knowledge;
  components: readonly { name: string; status: ComponentStatus | 'unknown'; isGroup: boolean }[];
  ongoing: readonly Pick<Incident, 'type' | 'status'>[];
}): WidgetState {
  return overallState(input.knowledge, statedState(input.ongoing, sourceComponentStates(input.components).values()));
}
