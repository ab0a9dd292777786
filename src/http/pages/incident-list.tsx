/** A page of archived incidents, newest first, each with its latest note as plain text. */
import type { ListedIncident } from '../../core/ports.ts';
import { truncate } from '../../core/notification-message.ts';
import { incidentPath } from './incident-card.tsx';
import { ServicesText, StatusLabel, TypeLabel } from './incident-labels.tsx';
import { durationText, Time } from './time.tsx';

const EXCERPT_MAX_CHARS = 240;

export function IncidentList(props: { incidents: readonly ListedIncident[] }) {
  return (
    <ol class="incident-list">
      {props.incidents.map((incident) => (
        <li class={`incident-row incident-${incident.type}`}>
          <h3>
            <a href={incidentPath(incident.id)}>{incident.title}</a>
          </h3>
          <p class="incident-meta">
            <TypeLabel type={incident.type} /> <StatusLabel status={incident.status} /> <ServicesText services={incident.services} />
          </p>
          <p class="incident-meta muted">
            <Time ms={incident.dateCreated.ms} />
            {incident.resolvedAt === null ? ' · not over yet' : ` · lasted ${durationText(incident.resolvedAt - incident.dateCreated.ms)}`}
            {` · ${incident.noteCount === 1 ? '1 note' : `${incident.noteCount} notes`}`}
          </p>
          {incident.latestNote && <p class="excerpt">{truncate(incident.latestNote.text, EXCERPT_MAX_CHARS)}</p>}
        </li>
      ))}
    </ol>
  );
}
