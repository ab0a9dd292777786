/** What one delivery says, whatever its channel: one incident's update, or one monitor event. */
import { renderEmail, type EmailContext, type RenderedEmail } from './email-render.ts';
import { isMonitorEvent, type MonitorEventData, type StatusEvent } from './events.ts';
import { renderMonitorEmail } from './monitor-message.ts';
import { fromSource, groupForMessages, type IncidentUpdate, type MessageSource } from './notification-message.ts';

export type DeliveryMessage =
  | { kind: 'incident'; update: IncidentUpdate /** The newest revision among the delivery's events. */; revision: number }
  | { kind: 'monitor'; data: MonitorEventData };

/**
 * The message of a delivery's events, or null when there is nothing to say (every event is
 * backfill). `source`: where they came from, so a source's incident is named after its page.
 */
export function deliveryMessageOf(events: readonly StatusEvent[], source: MessageSource | null = null): DeliveryMessage | null {
  // A monitor event is alone in its delivery: it concerns no incident, so nothing groups with it.
  const first = events[0];
  if (first && isMonitorEvent(first)) return { kind: 'monitor', data: first.data };
  const update = groupForMessages(events)[0];
  if (!update) return null;
  return { kind: 'incident', update: fromSource(update, source), revision: Math.max(...events.map((e) => e.revision)) };
}

export function renderDeliveryEmail(message: DeliveryMessage, context: EmailContext): RenderedEmail {
  return message.kind === 'monitor' ? renderMonitorEmail(message.data, context) : renderEmail(message.update, context);
}
