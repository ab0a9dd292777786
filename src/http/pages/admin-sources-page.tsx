/**
 * The admin page of sources: every status page watched, with its state, a form to add one, and
 * for each a button to remove it (its archive kept) and a second step to delete its archive too.
 */
import type { SourceView } from '../../app/sources.ts';
import { CsrfField, PostButton } from './admin-frame.tsx';
import { DataTable } from './data-table.tsx';
import { Time } from './time.tsx';

/** Each state in the same words as every face: unknown is said as unknown. */
const STATE_WORDS: Record<SourceView['state'], string> = {
  known: 'read',
  reads_failing: 'reads failing',
  unknown: 'unknown',
};

export type AdminSourcesData = {
  sources: SourceView[];
  csrf: string;
  /** What was typed into the form, kept when it was refused. */
  form: { url: string; name: string };
  error: string | null;
};

export function AdminSourcesPage(props: { data: AdminSourcesData }) {
  const { sources, csrf, form, error } = props.data;
  return (
    <>
      <DataTable labelledBy="sources-title" caption="Sources" columns={['Name', 'Address', 'Kind', 'State', 'Last good read', '']}>
        {sources.map((source) => (
          <tr>
            <td>{source.name}</td>
            <td>
              <code>{source.url}</code>
            </td>
            <td>{source.kind}</td>
            <td>{STATE_WORDS[source.state]}</td>
            <td>{source.lastSuccessAt === null ? 'never' : <Time ms={source.lastSuccessAt} />}</td>
            <td>
              {source.kind === 'vendor-feed' ? (
                'set by STATUS_URL'
              ) : (
                <div class="row-actions">
                  <PostButton action={`/admin/sources/${encodeURIComponent(source.id)}/remove`} csrf={csrf} label={`Remove ${source.name}`} danger />
                  {/* A second step without scripts: the delete button only shows once the summary is opened. */}
                  <details class="confirm-step">
                    <summary>Remove and delete its archive…</summary>
                    <p class="hint">Every incident, update and event archived from this page goes, for good, and deliveries not yet sent with them.</p>
                    <PostButton
                      action={`/admin/sources/${encodeURIComponent(source.id)}/purge`}
                      csrf={csrf}
                      label={`Delete ${source.name} and its archive for good`}
                      danger
                    />
                  </details>
                </div>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <p class="hint">Removing a source stops watching it; what it archived is kept unless you delete its archive too.</p>
      <section aria-labelledby="add-source-title">
        <h2 id="add-source-title">Add a status page</h2>
        {error && (
          <div class="error-summary" role="alert">
            <p>{error}</p>
          </div>
        )}
        <form method="post" action="/admin/sources" class="form-stack" novalidate>
          <CsrfField token={csrf} />
          <div class="field">
            <label for="source-url">Address</label>
            <input type="url" id="source-url" name="url" required value={form.url} aria-describedby="source-url-hint" aria-invalid={error ? true : undefined} />
            <p id="source-url-hint" class="hint">
              A page in the Statuspage format, such as https://www.githubstatus.com: it is checked before it is saved.
            </p>
          </div>
          <div class="field">
            <label for="source-name">Name (optional)</label>
            <input type="text" id="source-name" name="name" value={form.name} aria-describedby="source-name-hint" />
            <p id="source-name-hint" class="hint">
              The page's own name unless given.
            </p>
          </div>
          <div class="actions">
            <button type="submit">Add the page</button>
          </div>
        </form>
      </section>
    </>
  );
}
