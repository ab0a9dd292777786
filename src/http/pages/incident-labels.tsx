/** The small labels every incident carries: its type, its status, the services it touched. */
import { isOngoing } from '../../core/incident.ts';
import { servicesList, statusWord } from '../../core/notification-message.ts';

/** Known types get their colour; anything else the vendor invents is shown plainly (tolerant inside). */
const KNOWN_TYPES = new Set(['outage', 'incident', 'notice']);

export function TypeLabel(props: { type: string }) {
  const known = KNOWN_TYPES.has(props.type);
  return <span class={known ? `label label-${props.type}` : 'label'}>{statusWord(props.type)}</span>;
}

export function StatusLabel(props: { status: string }) {
  return <span class={isOngoing(props.status) ? 'label label-ongoing' : 'label label-finished'}>{statusWord(props.status)}</span>;
}

export function ServicesText(props: { services: readonly string[] }) {
  return <span class="services">{servicesList(props.services)}</span>;
}
