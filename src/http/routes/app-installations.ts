/**
 * The workspace app's installations as an admin API, behind Bearer ADMIN_TOKEN:
 * install from a pasted long-lived token, list the installations, and page through the
 * conversations an installation can post to. No answer ever carries a token.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppInstalls, ConversationsPosition } from '../../app/workspace-app/installs.ts';
import { type InstallationListDeps, listInstallations } from '../../app/workspace-app/installation-lists.ts';
import { ApiError } from '../../core/errors.ts';
import type { InstallationRecord } from '../../core/ports.ts';
import { iso } from '../api-json.ts';
import type { AppDeps } from '../deps.ts';
import { installFromTokenSchema } from '../openapi/api-schemas.ts';
import { parseRequest } from '../../core/parse-request.ts';
import { pageLimit } from '../query-params.ts';
import { jsonBody } from '../json-body.ts';
import { type CursorList, isSequence, readPosition, writeCursor } from '../../app/cursor-page.ts';
import { installErrorToApi } from '../../app/workspace-app/install-refusals.ts';
import { type AdminGuardDeps, requireAdmin } from './admin.ts';

const BODY_MAX_BYTES = 16 * 1024;

/** An installation as the API shows it: what it is and how it stands, never a token. */
export function toApiInstallation(installation: InstallationRecord) {
  return {
    id: installation.id,
    team_id: installation.teamId,
    bot_user_id: installation.botUserId,
    scopes: installation.scopes,
    state: installation.state,
    reason: installation.reason,
    access_token_expires_at: installation.accessTokenSealed === null ? null : iso(installation.accessExpiresAt),
    updated_at: iso(installation.updatedAt),
  };
}

export type AppInstallationRouteDeps = AdminGuardDeps & Pick<AppDeps, 'appInstalls' | 'cursors'> & InstallationListDeps;

export function appInstallationRoutes(deps: AppInstallationRouteDeps) {
  const app = new Hono();
  app.use('/api/app/*', requireAdmin(deps));
  const installs = (): AppInstalls => {
    if (!deps.appInstalls)
      throw new ApiError(503, 'app_not_configured', 'set APP_CLIENT_ID and APP_CLIENT_SECRET (and SECRET_KEY) to install the workspace app');
    return deps.appInstalls;
  };

  app.post(
    '/api/app/installations',
    bodyLimit({ maxSize: BODY_MAX_BYTES, onError: () => Promise.reject(new ApiError(413, 'too_large', `the body is at most ${BODY_MAX_BYTES} bytes`)) }),
    async (c) => {
      const { token } = parseRequest(installFromTokenSchema, await jsonBody(c));
      const installation = await installs().installFromToken(token).catch(installErrorToApi);
      return c.json({ ok: true, installation: toApiInstallation(installation) }, 201);
    },
  );

  app.get('/api/app/installations', async (c) => {
    return c.json({ ok: true, installations: (await listInstallations(deps)).map(toApiInstallation) });
  });

  app.get('/api/app/installations/:id/conversations', async (c) => {
    const id = c.req.param('id');
    const list = conversationsList(id);
    const from = await readPosition(deps.cursors, list, c.req.query('cursor'));
    const limit = pageLimit(c.req.query('limit'));
    // The vendor pages this list: where the next page starts is its answer, not our last row.
    const page = await installs().conversations(id, from, limit).catch(installErrorToApi);
    const next = page.next ? await writeCursor(deps.cursors, list, page.next) : '';
    return c.json({
      ok: true,
      conversations: page.conversations.map((x) => ({ id: x.id, name: x.name, is_private: x.isPrivate, is_archived: x.isArchived, is_member: x.isMember })),
      response_metadata: { next_cursor: next },
    });
  });

  return app;
}

/** Our cursor names the installation too: one issued for another installation's list is refused. */
function conversationsList(id: string): CursorList<ConversationsPosition> {
  return {
    name: 'app-conversations',
    fields: ({ vendorCursor, skip }) => ({ i: id, c: vendorCursor, s: skip }),
    position: ({ i, c, s }) =>
      i === id && (c === null || typeof c === 'string') && typeof s === 'number' && isSequence(s) ? { vendorCursor: c, skip: s } : null,
  };
}
