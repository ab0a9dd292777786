/** The body of `/incidents/:id`: the incident, its notes, and its history told as changes. */
import type { StoredEvent, StoredIncident } from '../../core/ports.ts';
import { vendorUrl } from '../../core/notification-message.ts';
import { ChangeList } from './change-list.tsx';
import { ServicesText, StatusLabel, TypeLabel } from './incident-labels.tsx';
import { NoteTimeline, type Sanitize } from './note-timeline.tsx';
import { durationText, Time } from './time.tsx';

export function IncidentPage(props: { incident: StoredIncident; events: StoredEvent[]; sanitize: Sanitize }) {
  const { incident, events } = props;
  const theirs = vendorUrl(incident.url);
  const apiPath = `/api/incidents/${encodeURIComponent(incident.id)}`;
  return (
    <article class={`incident-detail incident-${incident.type}`} aria-labelledby="incident-title">
      <p class="breadcrumb">
        <a href="/incidents">All incidents</a>
      </p>
      <h1 id="incident-title">{incident.title}</h1>
      <p class="incident-meta">
        <TypeLabel type={incident.type} /> <StatusLabel status={incident.status} />
      </p>
      <dl class="facts">
        <dt>Services</dt>
        <dd>
          <ServicesText services={incident.services} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time ms={incident.dateCreated.ms} />
        </dd>
        <dt>Last updated</dt>
        <dd>
          <Time ms={incident.dateUpdated.ms} />
        </dd>
        <dt>Ended</dt>
        <dd>
          {incident.resolvedAt === null ? (
            'Not over yet'
          ) : (
            <>
              <Time ms={incident.resolvedAt} /> (lasted {durationText(incident.resolvedAt - incident.dateCreated.ms)})
            </>
          )}
        </dd>
        <dt>First seen here</dt>
        <dd>
          <Time ms={incident.firstSeenAt} />
        </dd>
        <dt>Vendor id</dt>
        <dd>{incident.id}</dd>
      </dl>
      <p>
        {theirs && (
          <>
            <a href={theirs} rel="noopener noreferrer nofollow">
              The vendor’s page
            </a>
            {' · '}
          </>
        )}
        <a href={apiPath}>JSON</a> · <a href={`${apiPath}/versions`}>Every version</a>
      </p>
      <section aria-labelledby="notes-title">
        <h2 id="notes-title">Notes</h2>
        <NoteTimeline notes={incident.notes} sanitize={props.sanitize} label="Notes, newest first" />
      </section>
      <section aria-labelledby="changes-title">
        <h2 id="changes-title">Changes</h2>
        {/* The store lists events oldest first; the page reads newest first, like the notes above. */}
        <ChangeList events={[...events].reverse()} label="Changes, newest first" />
      </section>
    </article>
  );
}
