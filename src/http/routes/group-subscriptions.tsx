/**
 * Group subscriptions' admin API (members as last synced, the audit list, sync now) and the page a
 * member's one-click unsubscribe link opens, which mutes that member for that group only.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../../core/errors.ts';
import type { GroupLink, GroupLogEntry } from '../../core/ports/scim-directory.ts';
import { receives, type GroupMember, type MemberChange } from '../../core/scim-group.ts';
import { MEMBER_UNSUBSCRIBE_PATH } from '../../app/group-mail.ts';
import { iso } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import { groupDepsOf } from '../../app/group-subscriptions.ts';
import { formValue, readForm } from '../form-body.ts';
import { ErrorMessage } from '../pages/error-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';
import { OneClickUnsubscribeForm } from '../pages/subscription-pages.tsx';
import { pageRequest } from '../query-params.ts';
import { groupAuditPage, groupMemberPage } from '../../app/group-reads.ts';

const FORM_MAX_BYTES = 4 * 1024;

function toApiSync(link: GroupLink) {
  return {
    synced_at: iso(link.syncedAt),
    outcome: link.outcome,
    error: link.error,
    last_ok_at: iso(link.lastOkAt),
    version: link.version,
    group_deleted: link.groupDeleted,
  };
}

function toApiMember(m: GroupMember) {
  return { user_id: m.id, email: m.email, display_name: m.displayName, active: m.active, timezone: m.timeZone, muted: m.muted, receives: receives(m) };
}

function toApiChange(c: MemberChange) {
  return { user_id: c.userId, email: c.email, display_name: c.displayName, change: c.change };
}

function toApiLogEntry(e: GroupLogEntry) {
  return { id: e.id, at: iso(e.at), user_id: e.userId, email: e.email, display_name: e.displayName, change: e.change, detail: e.detail };
}

export type GroupSubscriptionRouteDeps = Pick<AppDeps, 'groups' | 'cursors' | 'assets' | 'clock' | 'logger'>;

export function groupSubscriptionRoutes(deps: GroupSubscriptionRouteDeps) {
  const app = new Hono();
  // Behind the admin token by subscriptionRoutes' guard on /api/subscriptions/* (app.ts mounts it
  // first): a second guard here ran the token check, and its throttle's read, twice a request.

  async function linkOf(id: string): Promise<GroupLink> {
    const link = await groupDepsOf(deps).store.groupLink(id);
    // A link lives exactly as long as its subscription (deleteSubscription takes it in its step).
    if (!link) throw new ApiError(404, 'subscription_not_found', 'no group subscription with that id');
    return link;
  }

  app.get('/api/subscriptions/:id/members', async (c) => {
    const link = await linkOf(c.req.param('id'));
    const reads = { store: groupDepsOf(deps).store, cursors: deps.cursors };
    const { page, next } = await groupMemberPage(reads, link.subscriptionId, { list: 'members', ...pageRequest(c) });
    return c.json({
      ok: true,
      group: { id: link.groupId, display_name: link.groupName },
      sync: toApiSync(link),
      total: link.memberCount,
      members: page.map(toApiMember),
      response_metadata: { next_cursor: next },
    });
  });

  app.get('/api/subscriptions/:id/audit', async (c) => {
    const link = await linkOf(c.req.param('id'));
    const reads = { store: groupDepsOf(deps).store, cursors: deps.cursors };
    const { page, next } = await groupAuditPage(reads, link.subscriptionId, { list: 'audit', ...pageRequest(c) });
    return c.json({ ok: true, audit: page.map(toApiLogEntry), response_metadata: { next_cursor: next } });
  });

  app.post('/api/subscriptions/:id/sync', async (c) => {
    const link = await linkOf(c.req.param('id'));
    const report = await groupDepsOf(deps).sync.syncGroup(link.subscriptionId);
    if (report.outcome === 'failed') throw new ApiError(502, 'directory_unavailable', `the sync failed and the last good member list is kept: ${report.error}`);
    return c.json({
      ok: true,
      outcome: report.outcome,
      group_deleted: report.groupDeleted,
      members: report.members,
      changes: report.changes.map(toApiChange),
      requests: report.requests,
      synced_at: iso(report.at),
    });
  });

  // The member's one-click unsubscribe: the sealed token names the subscription and the member.
  const page = pageResponder(deps.assets);
  const linkPage = pageSecurity({ forms: true, noStore: true });
  const limit = bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => c.text('Form too large', 413) });
  const badLink = (c: Context) =>
    page(
      c,
      'This link does not work',
      <ErrorMessage title="This link does not work" message="This unsubscribe link is not valid: copy the whole link from the email." />,
      404,
    );

  async function memberOf(token: string | undefined) {
    if (!token || !deps.groups?.mail) return null;
    return deps.groups.mail.openMemberToken(token);
  }

  app.get(MEMBER_UNSUBSCRIBE_PATH, linkPage, async (c) => {
    const token = c.req.query('token');
    const member = await memberOf(token);
    if (!member) return badLink(c);
    const link = await deps.groups?.store.groupLink(member.subscriptionId);
    return page(
      c,
      'Unsubscribe',
      <section aria-labelledby="unsubscribe-title">
        <h1 id="unsubscribe-title">Unsubscribe</h1>
        <p>
          Stop sending you the status alerts of the group <strong>{link?.groupName ?? 'unknown'}</strong>? Nobody else in the group is affected.
        </p>
        <OneClickUnsubscribeForm action={`${MEMBER_UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token!)}`} />
      </section>,
    );
  });

  // RFC 8058 one-click: the mail provider posts with no Origin and no cookies; the sealed token is the protection.
  app.post(MEMBER_UNSUBSCRIBE_PATH, linkPage, limit, async (c) => {
    const member = await memberOf(c.req.query('token') ?? formValue((await readForm(c)).token));
    if (!member || !deps.groups) return badLink(c);
    const muted = await deps.groups.store.muteMember(member.subscriptionId, member.userId, deps.clock.now());
    if (!muted) return badLink(c);
    deps.logger.info('a group member unsubscribed', { subscription: member.subscriptionId, member: member.userId });
    return page(
      c,
      'Unsubscribed',
      <section class="notice-page" aria-labelledby="done-title">
        <h1 id="done-title">You are unsubscribed</h1>
        <p>
          No more status alerts of this group will be sent to you while you are in it; if you leave the group and later join it again, you receive them again.
          The rest of the group still receives them.
        </p>
      </section>,
    );
  });

  return app;
}
