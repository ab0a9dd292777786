/**
 * The watched pages on the dashboard: the overview of every source on `/` (each one's state as a
 * whole, what goes on there, a link to its page) and a source's own page (its components and
 * their states, its ongoing and latest incidents). Blind or never read, a source says so in the
 * main feed's words (StatusBanner), and none of its components is shown in a state.
 */
import type { SourceDetail, SourceOverview } from '../../app/source-status.ts';
import { COMPONENT_STATUS_WORDS } from '../../core/source-state.ts';
import { DataTable } from './data-table.tsx';
import { IncidentCard } from './incident-card.tsx';
import { IncidentList } from './incident-list.tsx';
import type { Sanitize } from './note-timeline.tsx';
import { ServiceStateNow } from './service-bars.tsx';
import { StatusBanner } from './status-banner.tsx';
import { Time } from './time.tsx';

export function sourcePath(id: string): string {
  return `/sources/${encodeURIComponent(id)}`;
}

/** What is going on at a source, in a few words. */
function ongoingText(source: SourceOverview): string {
  const count = source.ongoing.length;
  const said = count === 0 ? 'no incident' : count === 1 ? '1 incident' : `${count} incidents`;
  return source.knowledge.kind === 'known' ? `${said} going on` : `${said} going on when last read`;
}

/** The overview on `/`: nothing when no source is watched beside the main feed. */
export function SourcesOverview(props: { sources: readonly SourceOverview[] }) {
  if (props.sources.length === 0) return null;
  return (
    <section aria-labelledby="sources-title">
      <h2 id="sources-title">Other status pages</h2>
      <DataTable labelledBy="sources-title" columns={['Page', 'State', 'Going on']}>
        {props.sources.map((source) => (
          <tr>
            <th scope="row">
              <a href={sourcePath(source.id)}>{source.name}</a>
            </th>
            <td>
              <ServiceStateNow state={source.state} />
            </td>
            <td>{ongoingText(source)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** The page's own word for a component: spelt out when known, as sent when not. */
function pageWords(component: SourceDetail['components'][number]): string {
  return component.status === 'unknown' ? `“${component.vendorStatus.slice(0, 40)}”` : COMPONENT_STATUS_WORDS[component.status];
}

export function SourcePage(props: { source: SourceDetail; sanitize: Sanitize }) {
  const { source } = props;
  const known = source.knowledge.kind === 'known';
  return (
    <>
      <p class="muted">
        <a href="/">All status pages</a> · The status page of <strong>{source.name}</strong>, watched at <code>{source.url}</code>:{' '}
        <ServiceStateNow state={source.state} />
      </p>
      <StatusBanner ongoing={source.ongoing} knowledge={source.knowledge} />
      {source.knowledge.kind === 'known' && !source.knowledge.readsFailing && source.consecutiveFailures === 0 && (
        <p class="feed-health muted">
          Last read <Time ms={source.knowledge.lastSuccessAt} />.
        </p>
      )}
      {source.ongoing.length > 0 && (
        <section aria-labelledby="ongoing-title">
          <h2 id="ongoing-title">{known ? 'Going on now' : 'Going on when the page was last read'}</h2>
          {source.ongoing.map((incident) => (
            <IncidentCard incident={incident} sanitize={props.sanitize} />
          ))}
        </section>
      )}
      <section aria-labelledby="components-title">
        <h2 id="components-title">Components</h2>
        {source.components.length === 0 ? (
          <p class="muted">{known ? 'The page lists no component.' : 'No component has been read from this page.'}</p>
        ) : (
          <DataTable labelledBy="components-title" columns={['Component', 'State', "The page's words", 'Since']}>
            {source.components.map((component) => (
              <tr>
                <th scope="row">{component.isGroup ? component.name : component.groupId ? `· ${component.name}` : component.name}</th>
                <td>
                  <ServiceStateNow state={component.state} />
                </td>
                <td>{known ? pageWords(component) : `${pageWords(component)} when last read`}</td>
                <td>
                  <Time ms={component.updatedAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <section aria-labelledby="recent-title">
        <h2 id="recent-title">Latest incidents</h2>
        {source.recent.length === 0 ? <p class="muted">The archive holds no incident of this page.</p> : <IncidentList incidents={source.recent} />}
      </section>
      <p>
        <a href={`/incidents?source=${encodeURIComponent(source.id)}`}>All incidents of {source.name}</a>
      </p>
    </>
  );
}
