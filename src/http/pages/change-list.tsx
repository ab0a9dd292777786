/**
 * An incident's change history, from its typed events (core/events.ts): each change said in words,
 * "Title changed from … to …", rather than shown as two versions to compare.
 */
import type { IncidentFieldChanges } from '../../core/events.ts';
import type { StoredEvent } from '../../core/ports.ts';
import { noteText, servicesList, statusWord } from '../../core/notification-message.ts';
import { Time } from './time.tsx';

export function ChangeList(props: { events: readonly StoredEvent[]; label: string }) {
  if (props.events.length === 0) return <p class="muted">No changes recorded.</p>;
  return (
    <ol class="change-list" aria-label={props.label}>
      {props.events.map((event) => (
        <li>
          <p class="timeline-time">
            <Time ms={changeTime(event)} />
          </p>
          <Change event={event} />
        </li>
      ))}
    </ol>
  );
}

/**
 * Events seen live happened, as far as we know, when we saw them (an edit keeps its old date in
 * the feed). Backfilled ones were seen all at once when the archive was seeded, so the vendor's
 * own time says more.
 */
function changeTime(event: StoredEvent): number {
  return event.backfill ? event.occurredAt : event.detectedAt;
}

function Change(props: { event: StoredEvent }) {
  const { data, backfill } = props.event;
  switch (data.type) {
    case 'incident.created':
      return <p>{backfill ? 'Archived from the vendor’s history.' : 'First seen in the vendor’s feed.'}</p>;
    case 'incident.status_changed':
      return (
        <p>
          Status changed from <strong>{statusWord(data.from)}</strong> to <strong>{statusWord(data.to)}</strong>.
        </p>
      );
    case 'incident.note_added':
      return <p>Note added.</p>;
    case 'incident.note_edited':
      return (
        <>
          <p>Note edited.</p>
          <details>
            <summary>Show the text before and after</summary>
            <p class="change-label">Before</p>
            <blockquote class="note-plain">{noteText(data.from)}</blockquote>
            <p class="change-label">After</p>
            <blockquote class="note-plain">{noteText(data.to)}</blockquote>
          </details>
        </>
      );
    case 'incident.updated':
      return <FieldChanges changes={data.changes} />;
  }
}

function FieldChanges(props: { changes: IncidentFieldChanges }) {
  const { title, type, services, url } = props.changes;
  return (
    <ul class="field-changes">
      {title && (
        <li>
          Title changed from “{title.from}” to “{title.to}”.
        </li>
      )}
      {type && (
        <li>
          Type changed from <strong>{statusWord(type.from)}</strong> to <strong>{statusWord(type.to)}</strong>.
        </li>
      )}
      {services && <li>{servicesChange(services.from, services.to)}</li>}
      {url && <li>The vendor moved the incident’s page.</li>}
    </ul>
  );
}

/** "Services: Files added; Calls removed." Both lists are sets (the vendor's order carries nothing). */
function servicesChange(from: readonly string[], to: readonly string[]): string {
  const added = to.filter((s) => !from.includes(s));
  const removed = from.filter((s) => !to.includes(s));
  const parts = [...(added.length > 0 ? [`${servicesList(added)} added`] : []), ...(removed.length > 0 ? [`${servicesList(removed)} removed`] : [])];
  return parts.length > 0 ? `Services: ${parts.join('; ')}.` : `Services changed to ${servicesList(to)}.`;
}
