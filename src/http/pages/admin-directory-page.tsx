/** The admin pages of group subscriptions: whether the SCIM directory answers, each group's members, audit list and "Sync now". */
import type { GroupLink, GroupLogEntry } from '../../core/ports/scim-directory.ts';
import { receives, type GroupMember } from '../../core/scim-group.ts';
import { plural } from '../../core/plural.ts';
import { PostButton } from './admin-frame.tsx';
import { DataTable } from './data-table.tsx';
import { Time } from './time.tsx';

/** What the directory said when asked which version it speaks: unknown until it answers. */
export type DirectoryStatus = { kind: 'not_configured' } | { kind: 'answers'; version: 'v2' | 'v1' } | { kind: 'fails'; error: string };

const VERSION_NAMES = { v2: 'SCIM 2.0 (/scim/v2)', v1: 'SCIM 1.1 (/scim/v1)' } as const;

function SyncState(props: { link: GroupLink }) {
  const { link } = props;
  if (link.outcome === 'never') return <span>never synced</span>;
  return (
    <span>
      {link.outcome === 'ok' ? (link.groupDeleted ? 'group deleted' : 'ok') : 'failed'}
      {link.syncedAt !== null && (
        <>
          {' '}
          at <Time ms={link.syncedAt} />
        </>
      )}
    </span>
  );
}

export function AdminDirectoryPage(props: { data: { scimUrl: string; status: DirectoryStatus; links: GroupLink[] } }) {
  const { scimUrl, status, links } = props.data;
  return (
    <>
      <section aria-labelledby="directory-title">
        <h2 id="directory-title">The SCIM directory</h2>
        <p>
          <code>{scimUrl}</code>:{' '}
          {status.kind === 'not_configured' ? (
            <strong>not configured</strong>
          ) : status.kind === 'answers' ? (
            <strong>answers, speaking {VERSION_NAMES[status.version]}</strong>
          ) : (
            <strong class="warning">does not answer as expected: {status.error}</strong>
          )}
        </p>
        {status.kind === 'not_configured' && (
          <p>
            Set <code>SCIM_TOKEN</code> (an admin-scoped token) and, for another host than the vendor’s, <code>SCIM_URL</code>. Group subscriptions are then
            created like email subscriptions, with a group instead of an address.
          </p>
        )}
      </section>
      <DataTable labelledBy="groups-title" caption="Group subscriptions" columns={['Group', 'Members', 'Last sync', 'Error']}>
        {links.length === 0 ? (
          <tr>
            <td colspan={4}>No group subscriptions yet.</td>
          </tr>
        ) : (
          links.map((link) => (
            <tr>
              <td>
                <a href={`/admin/directory/${encodeURIComponent(link.subscriptionId)}`}>{link.groupName}</a>
              </td>
              <td>{link.memberCount}</td>
              <td>
                <SyncState link={link} />
              </td>
              <td>{link.error ?? ''}</td>
            </tr>
          ))
        )}
      </DataTable>
    </>
  );
}

export type GroupPageData = {
  link: GroupLink;
  members: GroupMember[];
  /** The next page's signed cursor; null on the last page. */
  nextCursor: string | null;
  log: GroupLogEntry[];
  csrf: string;
};

export function AdminGroupPage(props: { data: GroupPageData }) {
  const { link, members, nextCursor, log, csrf } = props.data;
  const base = `/admin/directory/${encodeURIComponent(link.subscriptionId)}`;
  return (
    <>
      <p>
        Group <strong>{link.groupName}</strong> (<code>{link.groupId}</code>), {plural(link.memberCount, 'member')} as last synced: <SyncState link={link} />
        {link.outcome === 'failed' && link.lastOkAt !== null && (
          <>
            ; the list shown is the last good one, from <Time ms={link.lastOkAt} />
          </>
        )}
        .
      </p>
      {link.groupDeleted && (
        <p class="warning">
          The directory no longer has this group: its members get no alerts. The subscription is kept; delete it, or it alerts the group again once the
          directory has it back.
        </p>
      )}
      {link.error && <p class="warning">{link.error}</p>}
      <PostButton action={`${base}/sync`} csrf={csrf} label="Sync now" />{' '}
      <a href={`/admin/subscriptions/${encodeURIComponent(link.subscriptionId)}`}>The subscription</a>
      <DataTable labelledBy="members-title" caption="Members" columns={['Name', 'Email', 'Active', 'Time zone', 'Receives']}>
        {members.map((m) => (
          <tr>
            <td>{m.displayName}</td>
            <td>{m.email ?? 'none'}</td>
            <td>{m.active ? 'yes' : 'no'}</td>
            <td>{m.timeZone ?? 'the subscription’s'}</td>
            <td>{receives(m) ? 'yes' : m.muted ? 'no: unsubscribed' : 'no'}</td>
          </tr>
        ))}
      </DataTable>
      {nextCursor !== null && (
        <p>
          <a href={`${base}?cursor=${encodeURIComponent(nextCursor)}`}>Next members</a>
        </p>
      )}
      <DataTable labelledBy="audit-title" caption="Audit list, newest first" columns={['When', 'Change', 'Member', 'Detail']}>
        {log.map((e) => (
          <tr>
            <td>
              <Time ms={e.at} />
            </td>
            <td>{e.change}</td>
            <td>{e.userId === null ? '' : `${e.displayName ?? e.userId} (${e.email ?? 'no email'})`}</td>
            <td>{e.detail ?? ''}</td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
