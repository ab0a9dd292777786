/** One ongoing incident on `/`: what, where, since when, and its notes as a timeline. */
import type { StoredIncident } from '../../core/ports.ts';
import { ServicesText, StatusLabel, TypeLabel } from './incident-labels.tsx';
import { NoteTimeline, type Sanitize } from './note-timeline.tsx';
import { Time } from './time.tsx';

export function incidentPath(id: string): string {
  return `/incidents/${encodeURIComponent(id)}`;
}

export function IncidentCard(props: { incident: StoredIncident; sanitize: Sanitize }) {
  const { incident } = props;
  const headingId = `incident-${incident.id}`;
  return (
    <article class={`incident-card incident-${incident.type}`} aria-labelledby={headingId}>
      <h3 id={headingId}>
        <a href={incidentPath(incident.id)}>{incident.title}</a>
      </h3>
      <p class="incident-meta">
        <TypeLabel type={incident.type} /> <StatusLabel status={incident.status} /> <ServicesText services={incident.services} />
      </p>
      <p class="incident-meta muted">
        Started <Time ms={incident.dateCreated.ms} />, updated <Time ms={incident.dateUpdated.ms} />
      </p>
      <NoteTimeline notes={incident.notes} sanitize={props.sanitize} label={`Notes on ${incident.title}`} />
    </article>
  );
}
