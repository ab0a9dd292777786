/**
 * The admin pages of group subscriptions, under the admin session and its CSRF checks
 * (registered by admin-pages.tsx): /admin/directory says whether the SCIM directory answers and
 * which version it speaks, and each group subscription's page shows its members, its audit list
 * and a "Sync now" button.
 */
import type { Hono } from 'hono';
import { ScimCallError } from '../../core/scim-errors.ts';
import { ApiError } from '../../core/errors.ts';
import type { AppDeps } from '../deps.ts';
import { groupAuditPage, groupMemberPage } from '../../app/group-reads.ts';
import type { GroupMember } from '../../core/scim-group.ts';
import { AdminDirectoryPage, AdminGroupPage, type DirectoryStatus } from '../pages/admin-directory-page.tsx';
import type { AdminEnv, AdminPageTools } from '../admin-page-tools.ts';

const GROUPS_LISTED_MAX = 200;
const MEMBERS_PER_PAGE = 100;
const LOG_SHOWN = 50;

const NOTICES: Record<string, string> = {
  synced: 'Synced: the member list and the audit list below are what the directory says now.',
  failed: 'The sync failed: the last good member list is kept, and the audit list says why.',
};

export type AdminDirectoryPageDeps = Pick<AppDeps, 'groups' | 'cursors'>;

export function registerAdminDirectoryPages(app: Hono<AdminEnv>, deps: AdminDirectoryPageDeps, tools: AdminPageTools): void {
  app.get('/admin/directory', async (c) => {
    const groups = deps.groups;
    let status: DirectoryStatus = { kind: 'not_configured' };
    if (groups?.directory) {
      try {
        status = { kind: 'answers', version: await groups.directory.version() };
      } catch (error) {
        if (!(error instanceof ScimCallError)) throw error;
        status = { kind: 'fails', error: error.message };
      }
    }
    const links = groups ? await groups.store.groupLinks(GROUPS_LISTED_MAX) : [];
    return tools.adminPage(c, 'Directory', <AdminDirectoryPage data={{ scimUrl: groups?.scimUrl ?? 'not set', status, links }} />);
  });

  app.get('/admin/directory/:id', async (c) => {
    const link = await deps.groups?.store.groupLink(c.req.param('id'));
    if (!deps.groups || !link) return tools.problem(c, 404, 'Not found', 'No group subscription with that id.', '/admin/directory');
    // A signed cursor naming this group's list, as every other admin list pages: a link cannot be
    // edited into another position or carried to another group.
    const reads = { store: deps.groups.store, cursors: deps.cursors };
    let members: GroupMember[];
    let next: string;
    try {
      ({ page: members, next } = await groupMemberPage(reads, link.subscriptionId, {
        list: 'admin-members',
        cursor: c.req.query('cursor'),
        limit: MEMBERS_PER_PAGE,
      }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const back = `/admin/directory/${encodeURIComponent(link.subscriptionId)}`;
      return tools.problem(c, 400, 'Page link not valid', 'The link to this page of members is not valid; start from the first page.', back);
    }
    // The newest of the audit list; the whole of it pages through the API.
    const log = await groupAuditPage(reads, link.subscriptionId, { list: 'admin-audit', cursor: undefined, limit: LOG_SHOWN });
    const data = { link, members, nextCursor: next === '' ? null : next, log: log.page, csrf: c.get('csrf') };
    return tools.adminPage(c, `Group: ${link.groupName}`, <AdminGroupPage data={data} />, NOTICES[c.req.query('done') ?? ''] ?? null);
  });

  app.post('/admin/directory/:id/sync', async (c) => {
    const link = await deps.groups?.store.groupLink(c.req.param('id'));
    if (!deps.groups || !link) return tools.problem(c, 404, 'Not found', 'No group subscription with that id.', '/admin/directory');
    const report = await deps.groups.sync.syncGroup(link.subscriptionId);
    return c.redirect(`/admin/directory/${encodeURIComponent(link.subscriptionId)}?done=${report.outcome === 'failed' ? 'failed' : 'synced'}`, 303);
  });
}
