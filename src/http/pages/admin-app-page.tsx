/**
 * The admin page of the workspace app: its installations and how they stand, what needs
 * the admin (a broken installation holds its deliveries until it is installed again), and the two
 * ways to install: the vendor's OAuth flow, or a long-lived token pasted once. Never a token.
 */
import type { InstallationRecord } from '../../core/ports.ts';
import { CsrfField, PostButton } from './admin-frame.tsx';
import { DataTable } from './data-table.tsx';
import { Time } from './time.tsx';

export type AdminAppPageData = {
  installations: InstallationRecord[];
  csrf: string;
  /** False while APP_CLIENT_ID or APP_CLIENT_SECRET is unset: nothing can be installed. */
  configured: boolean;
  /** The paste form's error, shown beside it; the token itself is never put back in the form. */
  tokenError?: string | null;
};

/** A workspace as the admin reads it: its name when the vendor gave one, else its id said to be all we know. */
export function workspaceName(installation: Pick<InstallationRecord, 'teamId' | 'teamName'>): string {
  return installation.teamName ?? `Workspace ${installation.teamId} (name unknown)`;
}

const STATE_LABELS: Record<InstallationRecord['state'], string> = { active: 'Active', broken: 'Broken: install again', uninstalled: 'Uninstalled' };

function NeedsAttention(props: { broken: InstallationRecord[] }) {
  if (props.broken.length === 0) return null;
  return (
    <div class="error-summary" role="alert" aria-labelledby="broken-title">
      <h2 id="broken-title">{props.broken.length === 1 ? 'An installation needs you' : `${props.broken.length} installations need you`}</h2>
      <ul>
        {props.broken.map((i) => (
          <li>
            {workspaceName(i)} ({i.teamId}): the vendor no longer accepts its tokens ({i.reason ?? 'no reason given'}, <Time ms={i.updatedAt} />
            ). Its messages are held, not lost; install the app again to send them.
          </li>
        ))}
      </ul>
    </div>
  );
}

export function AdminAppPage(props: { data: AdminAppPageData }) {
  const { installations, csrf, configured } = props.data;
  const broken = installations.filter((i) => i.state === 'broken');
  return (
    <>
      <NeedsAttention broken={broken} />
      {!configured && (
        <p class="notice" role="status">
          Set APP_CLIENT_ID and APP_CLIENT_SECRET (from the app made with <code>statuswatch manifest</code>) to install the app.
        </p>
      )}
      <section aria-labelledby="installations-title">
        <h2 id="installations-title">{installations.length === 0 ? 'Not installed in any workspace yet' : 'Installations'}</h2>
        {installations.length > 0 && (
          <DataTable labelledBy="installations-title" columns={['Workspace and bot user', 'Scopes', 'State and reason', 'Token expires', 'Actions']}>
            {installations.map((i) => (
              <tr>
                <th scope="row">
                  {workspaceName(i)}
                  <span class="id-detail" title={`workspace ${i.teamId} · bot ${i.botUserId} · installation ${i.id}`}>
                    workspace {i.teamId} · bot {i.botUserId}
                  </span>
                </th>
                <td>{i.scopes.join(' ')}</td>
                <td class="wrap">
                  <span class={`label label-installation-${i.state}`}>{STATE_LABELS[i.state]}</span>
                  {i.reason && <p class="hint">{i.reason}</p>}
                </td>
                <td>{i.accessTokenSealed === null ? '' : <Time ms={i.accessExpiresAt} />}</td>
                <td>
                  <div class="row-actions">
                    {configured && (
                      <a class="button-secondary" href={`/admin/app/install?team=${encodeURIComponent(i.teamId)}`}>
                        {i.state === 'active' ? 'Re-install' : 'Install again'}
                      </a>
                    )}
                    {configured && i.state !== 'uninstalled' && (
                      <PostButton action={`/admin/app/installations/${encodeURIComponent(i.id)}/uninstall`} csrf={csrf} label="Uninstall" danger />
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      {configured && (
        <section aria-labelledby="add-title">
          <h2 id="add-title">Add to a workspace</h2>
          <p>Opens the vendor’s page, where a workspace admin allows the app; you come back here when it is installed.</p>
          <p>
            <a class="button" href="/admin/app/install">
              Add to workspace
            </a>
          </p>
          <h3 id="paste-title">Or paste a long-lived token</h3>
          <form method="post" action="/admin/app/installations" class="form-stack" novalidate aria-labelledby="paste-title">
            <CsrfField token={csrf} />
            {props.data.tokenError && (
              <div class="error-summary" role="alert">
                <p>{props.data.tokenError}</p>
              </div>
            )}
            <div class="field">
              <label for="app-token">Bot token</label>
              <input
                type="password"
                id="app-token"
                name="token"
                required
                autocomplete="off"
                aria-describedby="app-token-hint"
                aria-invalid={props.data.tokenError ? true : undefined}
              />
              <p id="app-token-hint" class="hint">
                A token that does not expire yet. It is exchanged once for a rotating pair, stored sealed, and never shown again; the vendor exchanges a token
                only once.
              </p>
            </div>
            <div class="actions">
              <button type="submit">Install with this token</button>
            </div>
          </form>
        </section>
      )}
    </>
  );
}
