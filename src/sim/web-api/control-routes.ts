/**
 * The Web API simulator's `/_sim` control API: make workspaces, tokens and OAuth codes; set
 * lifetimes, grace, page shapes, rate limits and faults; fix the clock; read what the app did
 * (misuse counters, channel contents, the call log). Errors use the project's one shape.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import type { Channel } from './channels.ts';
import {
  appSchema,
  channelPatchSchema,
  channelSchema,
  clockSchema,
  codeRequestSchema,
  faultSchema,
  messagesSchema,
  rateLimitSchema,
  settingsSchema,
  tokenRequestSchema,
  workspaceSchema,
} from './control-schemas.ts';
import type { WebApiState } from './state.ts';
import { totalMisuse } from './token-misuse.ts';
import type { Workspace } from './workspaces.ts';

export const WEB_API_CONTROL_PREFIX = '/_sim';

type ControlErrorCode = 'invalid_request' | 'not_found' | 'conflict' | 'internal';

class ControlError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    readonly code: ControlErrorCode,
    readonly detail: string,
  ) {
    super(detail);
  }
}

async function parseBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await request.json();
  } catch (cause) {
    throw new ControlError(400, 'invalid_request', `body is not JSON (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ControlError(
      400,
      'invalid_request',
      parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`).join('; '),
    );
  }
  return parsed.data;
}

export function channelSummary(channel: Channel) {
  return {
    id: channel.id,
    name: channel.name,
    isPrivate: channel.isPrivate,
    isArchived: channel.isArchived,
    botIsMember: channel.botIsMember,
    messageCount: channel.messages.length,
  };
}

export function workspaceSummary(state: WebApiState, workspace: Workspace) {
  const nowMs = state.now();
  return {
    teamId: workspace.teamId,
    name: workspace.name,
    enterprise: workspace.enterprise,
    botUserId: workspace.botUserId,
    botId: workspace.botId,
    botName: workspace.botName,
    installerUserId: workspace.installerUserId,
    status: workspace.status,
    scopes: workspace.scopes,
    stats: { ...workspace.stats },
    activeTokens: state.tokens
      .activeAccessTokens(workspace.teamId, nowMs)
      .map((t) => ({ tokenType: t.tokenType, expiring: t.expiring, issuedAtMs: t.issuedAtMs, expiresAtMs: t.expiresAtMs })),
    misuse: { total: totalMisuse(workspace.misuse.counters), ...workspace.misuse.counters, events: [...workspace.misuse.events] },
    channels: state.channels.ofTeam(workspace.teamId).map(channelSummary),
  };
}

/** A channel with every message, its earlier texts and its thread: what a reader could have seen. */
export function channelDetail(channel: Channel) {
  return {
    ...channelSummary(channel),
    teamId: channel.teamId,
    messages: channel.messages.map((m) => ({
      ts: m.ts,
      userId: m.userId,
      botId: m.botId,
      text: m.text,
      blocks: m.blocks,
      threadTs: m.threadTs,
      editCount: m.editCount,
      editedTs: m.editedTs,
      previous: m.previous.map((p) => ({ ...p })),
    })),
  };
}

export function webApiControlRoutes(state: WebApiState): Hono {
  const app = new Hono().basePath(WEB_API_CONTROL_PREFIX);
  const workspaceOr404 = (teamId: string): Workspace => {
    const workspace = state.workspaces.get(teamId);
    if (!workspace) throw new ControlError(404, 'not_found', `no workspace ${teamId}`);
    return workspace;
  };
  const channelOr404 = (channelId: string): Channel => {
    const channel = state.channels.get(channelId);
    if (!channel) throw new ControlError(404, 'not_found', `no channel ${channelId}`);
    return channel;
  };
  const addChannel = (workspace: Workspace, fields: z.output<typeof channelSchema>): Channel => {
    const channel = state.channels.add({ teamId: workspace.teamId, ...fields }, state.now());
    if (!channel) throw new ControlError(409, 'conflict', `channel ${fields.name} exists, or the workspace has as many channels as it may`);
    return channel;
  };

  app.get('/state', (c) =>
    c.json({
      app: { ...state.app },
      settings: { ...state.settings },
      clock: { nowMs: state.now(), fixed: state.clockFixed },
      workspaces: state.workspaces.list().map((w) => workspaceSummary(state, w)),
      faults: state.faults.list(),
      rateLimits: state.rateLimits.list(),
    }),
  );

  app.put('/app', async (c) => {
    const fields = await parseBody(c.req.raw, appSchema);
    if (fields.tokenRotationEnabled === false && state.app.tokenRotationEnabled) {
      throw new ControlError(409, 'conflict', 'token rotation cannot be turned off again once on');
    }
    state.app = { ...state.app, ...fields };
    return c.json({ ...state.app });
  });

  app.put('/settings', async (c) => {
    state.settings = { ...state.settings, ...(await parseBody(c.req.raw, settingsSchema)) };
    return c.json({ ...state.settings });
  });

  app.put('/clock', async (c) => {
    state.setClock((await parseBody(c.req.raw, clockSchema)).nowMs);
    return c.json({ nowMs: state.now(), fixed: true });
  });
  app.delete('/clock', (c) => {
    state.setClock(null);
    return c.json({ nowMs: state.now(), fixed: false });
  });

  app.post('/workspaces', async (c) => {
    const { channels = [], installed = true, ...fields } = await parseBody(c.req.raw, workspaceSchema);
    const nowMs = state.now();
    const workspace = state.workspaces.add({ ...fields, installed }, nowMs);
    if (!workspace) throw new ControlError(409, 'conflict', 'that team id is taken, or the sim holds as many workspaces as it may');
    for (const channel of channels) addChannel(workspace, channel);
    const token = installed ? state.tokens.issueLongLived(workspace, 'bot', workspace.botUserId, nowMs).value : null;
    return c.json({ workspace: workspaceSummary(state, workspace), token }, 201);
  });

  app.get('/workspaces/:teamId', (c) => c.json(workspaceSummary(state, workspaceOr404(c.req.param('teamId')))));

  app.post('/workspaces/:teamId/tokens', async (c) => {
    const workspace = workspaceOr404(c.req.param('teamId'));
    const { type, userId } = await parseBody(c.req.raw, tokenRequestSchema);
    if (workspace.status !== 'installed') throw new ControlError(409, 'conflict', `the app is ${workspace.status.replace('_', ' ')} in ${workspace.teamId}`);
    const subject = type === 'bot' ? workspace.botUserId : (userId ?? workspace.installerUserId);
    return c.json({ token: state.tokens.issueLongLived(workspace, type, subject, state.now()).value, type }, 201);
  });

  app.post('/workspaces/:teamId/codes', async (c) => {
    const workspace = workspaceOr404(c.req.param('teamId'));
    const { redirectUri, scopes } = await parseBody(c.req.raw, codeRequestSchema);
    const entry = state.tokens.issueCode(workspace.teamId, { redirectUri: redirectUri ?? null, scopes: scopes ?? null }, state.now());
    return c.json({ code: entry.code }, 201);
  });

  app.post('/workspaces/:teamId/channels', async (c) => {
    const workspace = workspaceOr404(c.req.param('teamId'));
    return c.json(channelSummary(addChannel(workspace, await parseBody(c.req.raw, channelSchema))), 201);
  });

  app.get('/channels/:channelId', (c) => c.json(channelDetail(channelOr404(c.req.param('channelId')))));

  app.patch('/channels/:channelId', async (c) => {
    const channel = channelOr404(c.req.param('channelId'));
    const patch = await parseBody(c.req.raw, channelPatchSchema);
    if (patch.isArchived !== undefined) channel.isArchived = patch.isArchived;
    if (patch.botIsMember !== undefined) channel.botIsMember = patch.botIsMember;
    return c.json(channelSummary(channel));
  });

  app.post('/channels/:channelId/messages', async (c) => {
    const channel = channelOr404(c.req.param('channelId'));
    const workspace = workspaceOr404(channel.teamId);
    const { messages } = await parseBody(c.req.raw, messagesSchema);
    const nowMs = state.now();
    const ts = messages.map((m) => {
      if (m.threadTs !== undefined) {
        const parent = state.channels.message(channel, m.threadTs);
        if (!parent) throw new ControlError(400, 'invalid_request', `threadTs ${m.threadTs} names no message of ${channel.id}`);
        parent.threadTs = parent.ts;
      }
      return state.channels.post(
        channel,
        { userId: m.userId ?? workspace.installerUserId, botId: null, text: m.text, blocks: null, threadTs: m.threadTs ?? null },
        nowMs,
      ).ts;
    });
    return c.json({ ts }, 201);
  });

  // A person (or the workspace's retention) deletes a message: a root goes with its thread.
  app.delete('/channels/:channelId/messages/:ts', (c) => {
    const channel = channelOr404(c.req.param('channelId'));
    const deleted = state.channels.remove(channel, c.req.param('ts'));
    if (deleted === 0) throw new ControlError(404, 'not_found', `no message ${c.req.param('ts')} in ${channel.id}`);
    return c.json({ ok: true, deleted });
  });

  app.get('/faults', (c) => c.json({ faults: state.faults.list() }));
  app.post('/faults', async (c) => {
    const fault = state.faults.add(await parseBody(c.req.raw, faultSchema));
    if (!fault) throw new ControlError(409, 'conflict', 'too many faults registered; DELETE /_sim/faults first');
    return c.json(fault, 201);
  });
  app.delete('/faults', (c) => {
    state.faults.clear();
    return c.json({ ok: true });
  });

  app.get('/rate-limits', (c) => c.json({ rateLimits: state.rateLimits.list() }));
  app.put('/rate-limits', async (c) => {
    const rule = await parseBody(c.req.raw, rateLimitSchema);
    if (!state.rateLimits.set(rule)) throw new ControlError(409, 'conflict', 'too many rate-limit rules');
    return c.json(rule);
  });
  app.delete('/rate-limits', (c) => {
    state.rateLimits.clear();
    return c.json({ ok: true });
  });

  app.get('/calls', (c) => c.json({ calls: state.calls.list() }));
  app.delete('/calls', (c) => {
    state.calls.clear();
    return c.json({ ok: true });
  });

  app.notFound((c) => c.json({ ok: false, error: 'not_found', detail: `no control route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof ControlError) return c.json({ ok: false, error: err.code, detail: err.detail }, err.status);
    return c.json({ ok: false, error: 'internal', detail: err.message }, 500);
  });
  return app;
}
