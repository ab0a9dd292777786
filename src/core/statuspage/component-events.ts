/**
 * A watched page's component that changed state between two good reads is an event of its own,
 * `component.status_changed`, whether or not an incident says so. Pure: the source poller passes
 * the states it kept and the states it read.
 */
import type { ComponentEvent, ComponentEventData } from '../events.ts';
import { componentState } from '../source-state.ts';
import { SERVICE_STATE_WORDS } from '../widget-state.ts';
import { groupedComponentName, type ComponentState } from './mapping.ts';

/**
 * The names a subscriber may have chosen a component by among a source's services
 * (mapping.ts componentServiceNames): its own, or with its group's when several share it.
 */
export function componentServiceNamesOf(component: { name: string; group?: string }): string[] {
  return component.group === undefined ? [component.name] : [component.name, groupedComponentName(component.group, component.name)];
}

/**
 * The subject of a component's events, in the place of an incident id: the source id first, so
 * every rule that finds a source's events by its incidents' ids (`?source=`, the subscription
 * filters, the purge of a source, the page a message names) finds these too. The word
 * `component` after the colon keeps it apart from the vendor's incident ids, which hold no colon.
 */
export function componentSubjectId(sourceId: string, componentId: string): string {
  return `${sourceId}:component:${componentId}`;
}

/**
 * The event's id: the component's subject and the instant its previous state began (as kept with
 * it). Re-planning or re-applying the same poll gives the same id, and so does a second poll that
 * saw the same change from the same kept state: the archive keeps it once.
 */
export function componentEventId(sourceId: string, componentId: string, previousSinceMs: number): string {
  return `${componentSubjectId(sourceId, componentId)}.s${previousSinceMs}`;
}

/** Whether the change enters or leaves an outage (our word): all an on-call tool hears of a component. */
export function componentOutageMoved(data: Pick<ComponentEventData, 'from_state' | 'to_state'>): boolean {
  return data.from_state === SERVICE_STATE_WORDS.outage || data.to_state === SERVICE_STATE_WORDS.outage;
}

/** A component as kept (SourceStore.componentStates): its state, and since when it holds (epoch ms). */
export type KeptComponentState = ComponentState & { updatedAt: number };

/**
 * The events of one good read of a source's page against the components kept from the previous
 * good read. None on the source's first read (`kept` empty: nothing to compare with, as an
 * incident's backfill is not news), none for a component that appears or leaves the page (a new
 * row is not a change of state; a trimmed body drops rows), none for a group row (its state is
 * its children's, each an event of its own). A change is a change of the page's own word, so a
 * word we do not know is still told, as unknown on our side.
 */
export function componentEvents(input: {
  source: { id: string; name: string };
  kept: ReadonlyMap<string, KeptComponentState>;
  read: readonly ComponentState[];
  detectedAt: number;
}): ComponentEvent[] {
  const { source, kept, read, detectedAt } = input;
  if (kept.size === 0) return [];
  const groups = new Map(read.filter((c) => c.isGroup).map((c) => [c.id, c.name]));
  for (const c of kept.values()) if (c.isGroup && !groups.has(c.id)) groups.set(c.id, c.name);
  const events: ComponentEvent[] = [];
  for (const now of read) {
    const before = kept.get(now.id);
    if (!before || now.isGroup || before.vendorStatus === now.vendorStatus) continue;
    const group = now.groupId === null ? undefined : groups.get(now.groupId);
    events.push({
      id: componentEventId(source.id, now.id, before.updatedAt),
      type: 'component.status_changed',
      incidentId: componentSubjectId(source.id, now.id),
      revision: 0,
      // The page gives no time for a component's change: the read that saw it is the best known.
      occurredAt: detectedAt,
      detectedAt,
      backfill: false,
      data: {
        type: 'component.status_changed',
        source: { id: source.id, name: source.name },
        component: { id: now.id, name: now.name, ...(group === undefined ? {} : { group }) },
        from: before.vendorStatus,
        to: now.vendorStatus,
        from_state: SERVICE_STATE_WORDS[componentState(before.status, true)],
        to_state: SERVICE_STATE_WORDS[componentState(now.status, true)],
      },
    });
  }
  return events;
}
