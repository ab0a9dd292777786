/** What one delivery says, whatever its channel: one incident's update, one monitor event, or one component's change. */
import { renderComponentEmail } from './component-message.ts';
import { renderEmail, type EmailContext, type RenderedEmail } from './email-render.ts';
import { isComponentEvent, isMonitorEvent, type ComponentEventData, type MonitorEventData, type StatusEvent } from './events.ts';
import { renderMonitorEmail } from './monitor-message.ts';
import { fromSource, groupForMessages, type IncidentUpdate, type MessageSource } from './notification-message.ts';

export type DeliveryMessage =
  | { kind: 'incident'; update: IncidentUpdate /** The newest revision among the delivery's events. */; revision: number }
  | { kind: 'monitor'; data: MonitorEventData }
  /** The subject of the events: `<source>:component:<id>` (component-events.ts), for a tool's alert key. */
  | { kind: 'component'; data: ComponentEventData; subjectId: string };

/**
 * The message of a delivery's events, or null when there is nothing to say (every event is
 * backfill). `source`: where they came from, so a source's incident is named after its page.
 */
export function deliveryMessageOf(events: readonly StatusEvent[], source: MessageSource | null = null): DeliveryMessage | null {
  // A monitor event is alone in its delivery: it concerns no incident, so nothing groups with it.
  const first = events[0];
  if (first && isMonitorEvent(first)) return { kind: 'monitor', data: first.data };
  // A component's events are grouped by the component (fanout.ts): one a poll, the newest told.
  const changes = events.filter((e) => !e.backfill && isComponentEvent(e));
  const newest = changes.at(-1);
  if (newest && isComponentEvent(newest)) return { kind: 'component', data: newest.data, subjectId: newest.incidentId };
  const update = groupForMessages(events)[0];
  if (!update) return null;
  return { kind: 'incident', update: fromSource(update, source), revision: Math.max(...events.map((e) => e.revision)) };
}

export function renderDeliveryEmail(message: DeliveryMessage, context: EmailContext): RenderedEmail {
  if (message.kind === 'monitor') return renderMonitorEmail(message.data, context);
  if (message.kind === 'component') return renderComponentEmail(message.data, context);
  return renderEmail(message.update, context);
}
