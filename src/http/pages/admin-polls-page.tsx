/** The admin view of poll runs: what each poll of the vendor's feed got, and the payloads it refused, shown raw. */
import { plural } from '../../core/plural.ts';
import type { PollRun, RecordedRejection, SourceReport } from '../../core/ports.ts';
import { Time } from './time.tsx';
import { DataTable } from './data-table.tsx';
import { wellFormedPrefix } from '../../core/well-formed-text.ts';

/** A refused payload can be a whole HTML error page; the page shows this much and says so. */
const PAYLOAD_SHOWN_CHARS = 64 * 1024;

function sourceText(s: SourceReport): string {
  const parts = [
    s.httpStatus === undefined ? '' : `HTTP ${s.httpStatus}`,
    s.notModified ? 'not modified' : '',
    s.incidents === undefined ? '' : plural(s.incidents, 'incident'),
    s.skipped ? `${s.skipped} skipped` : '',
    `${s.durationMs} ms`,
    s.error ? `error: ${s.error}` : '',
  ].filter(Boolean);
  return `${s.source}: ${parts.join(', ')}`;
}

export function changesText(run: PollRun): string {
  const entries = Object.entries(run.changes).filter(([, n]) => n);
  return entries.length ? entries.map(([type, n]) => `${n} ${type}`).join(', ') : 'no changes';
}

export function PollsPage(props: { runs: PollRun[]; olderHref: string | null; onFirstPage: boolean }) {
  const { runs } = props;
  return (
    <section aria-labelledby="polls-title">
      <h2 id="polls-title">{runs.length === 0 ? 'No poll runs yet' : `${runs.length} ${runs.length === 1 ? 'poll run' : 'poll runs'}, newest first`}</h2>
      {runs.length > 0 && (
        <DataTable labelledBy="polls-title" columns={['Started', 'Outcome', 'Took', 'Sources', 'Changes', 'Error']}>
          {runs.map((run) => (
            <tr>
              <th scope="row">
                <a href={`/admin/polls/${encodeURIComponent(run.id)}`}>
                  <Time ms={run.startedAt} />
                </a>
              </th>
              <td>
                <span class={`label label-outcome-${run.outcome}`}>{run.outcome}</span>
              </td>
              <td>{run.finishedAt - run.startedAt} ms</td>
              <td class="wrap">
                <ul class="plain-list">
                  {run.sources.map((s) => (
                    <li>{sourceText(s)}</li>
                  ))}
                </ul>
              </td>
              <td>{changesText(run)}</td>
              <td class="wrap">{run.error ?? ''}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {(props.olderHref || !props.onFirstPage) && (
        <nav class="pagination" aria-label="Pages">
          {!props.onFirstPage && <a href="/admin/polls">Newest first</a>}
          {props.olderHref && (
            <a href={props.olderHref} rel="next">
              Older runs
            </a>
          )}
        </nav>
      )}
    </section>
  );
}

export function PollPage(props: { run: PollRun; rejected: RecordedRejection[] }) {
  const { run, rejected } = props;
  return (
    <>
      <dl class="facts">
        <dt>Outcome</dt>
        <dd>
          <span class={`label label-outcome-${run.outcome}`}>{run.outcome}</span>
        </dd>
        <dt>Started</dt>
        <dd>
          <Time ms={run.startedAt} />
        </dd>
        <dt>Took</dt>
        <dd>{run.finishedAt - run.startedAt} ms</dd>
        <dt>Changes</dt>
        <dd>{changesText(run)}</dd>
        {run.error && (
          <>
            <dt>Error</dt>
            <dd>{run.error}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
      <section aria-labelledby="sources-title">
        <h2 id="sources-title">Sources</h2>
        <ul>
          {run.sources.map((s) => (
            <li class="wrap">
              {sourceText(s)}
              {s.url ? (
                <>
                  {' '}
                  (<code>{s.url}</code>)
                </>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="rejected-title">
        <h2 id="rejected-title">
          {rejected.length === 0 ? 'No refused payloads' : `${rejected.length} refused ${rejected.length === 1 ? 'payload' : 'payloads'}`}
        </h2>
        {rejected.map((r, i) => (
          <article class="admin-card refused" aria-labelledby={`rejected-${i}`}>
            <h3 id={`rejected-${i}`}>
              {r.source}: {r.error}
            </h3>
            <p class="muted wrap">
              <Time ms={r.receivedAt} /> from <code>{r.url}</code>
            </p>
            {r.body === null ? (
              <p class="hint">
                The body is no longer kept (retention); its SHA-256 was <code>{r.sha256}</code>.
              </p>
            ) : (
              <>
                {r.body.seenCount > 1 && (
                  <p class="muted">
                    The same body came {r.body.seenCount} times, from <Time ms={r.body.firstSeenAt} /> to <Time ms={r.body.lastSeenAt} />; it is kept once.
                  </p>
                )}
                {/* As the vendor sent it, escaped: an HTML error page shows as its source, never as markup. */}
                {/* biome-ignore lint/a11y/useSemanticElements: the <pre> is what scrolls, so it is the focusable, named region itself */}
                <pre class="payload" tabindex={0} role="region" aria-label={`Body of the refused ${r.source} payload`}>
                  {wellFormedPrefix(r.body.text, PAYLOAD_SHOWN_CHARS)}
                </pre>
                {r.body.text.length > PAYLOAD_SHOWN_CHARS && (
                  <p class="hint">
                    First {PAYLOAD_SHOWN_CHARS} of {r.body.text.length} characters; the API has it whole at /api/admin/polls/{run.id}.
                  </p>
                )}
              </>
            )}
          </article>
        ))}
      </section>
      <p>
        <a href="/admin/polls">All poll runs</a>
      </p>
    </>
  );
}
