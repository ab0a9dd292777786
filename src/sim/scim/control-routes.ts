/** The SCIM sim's `/_sim` control API: seed and edit the directory, set the clock, faults, short pages, read counters. */
import { Hono } from 'hono';
import type { z } from 'zod';
import { ScimError } from './errors.ts';
import {
  advanceSchema,
  clockSchema,
  controlGroupSchema,
  controlUserSchema,
  linkedChannelsSchema,
  memberChangeSchema,
  rateLimitSwitchSchema,
  rfcModesSchema,
  scimFaultSchema,
  seedSchema,
  shortPagesSchema,
  versionsSchema,
  workspaceSchema,
} from './control-schemas.ts';
import type { ScimState } from './state.ts';
import { userFromCreate } from './user-writes.ts';
import { URNS } from './urns.ts';
import { groupView, userView, type ViewContext } from './views.ts';

export const SCIM_CONTROL_PREFIX = '/_sim';

type ErrorBody = { ok: false; error: string; detail: string };

class InvalidControlRequest extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

async function parseJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new InvalidControlRequest('body is not JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new InvalidControlRequest(parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

type ControlUser = { userName: string; email: string; displayName?: string; guest?: 'multi' | 'single' };

/** Adds a person as an identity provider would, through the same rules as POST /Users. */
function addUser(state: ScimState, input: ControlUser) {
  const urns = URNS.v2;
  const body: Record<string, unknown> = {
    schemas: input.guest === 'multi' ? [urns.user, urns.guest] : [urns.user],
    userName: input.userName,
    emails: [{ value: input.email, primary: true }],
    ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
    ...(input.guest === 'multi' ? { [urns.guest]: { type: 'multi' } } : {}),
  };
  const user = userFromCreate('v2', state.directory.nextUserId(), state.now(), body, () => null);
  user.singleChannelGuest = input.guest === 'single';
  return state.directory.saveUser(user);
}

function snapshot(state: ScimState) {
  const users = state.directory.users();
  return {
    users: users.length,
    activeUsers: users.filter((u) => u.active).length,
    groups: state.directory.groups().length,
    memberships: state.directory.membershipCount(),
    limits: state.directory.limits,
    nowMs: state.now(),
    rateLimits: state.rateLimitsEnabled,
    shortPages: state.shortPages,
    workspaceRefusal: state.workspaceRefusal,
    versions: state.versions,
    rfc: state.rfc,
    faults: state.faults.list(),
  };
}

export function scimControlRoutes(state: ScimState): Hono {
  const app = new Hono().basePath(SCIM_CONTROL_PREFIX);
  const ctx = (request: Request): ViewContext => ({ version: 'v2', baseUrl: new URL(request.url).origin });

  app.get('/state', (c) => c.json(snapshot(state)));

  app.post('/reset', (c) => {
    state.reset();
    return c.json(snapshot(state));
  });

  app.post('/seed', async (c) => {
    const seed = await parseJson(c.req.raw, seedSchema);
    const multi = seed.multiChannelGuests ?? 0;
    const single = seed.singleChannelGuests ?? 0;
    if (multi + single > seed.users) throw new InvalidControlRequest('more guests than users');
    if (seed.users > state.directory.limits.maxUsers) throw new InvalidControlRequest(`at most ${state.directory.limits.maxUsers} users`);
    const fullMembers = seed.users - multi - single;
    for (const g of seed.groups ?? []) {
      if (g.members > fullMembers)
        throw new InvalidControlRequest(`group ${g.displayName} wants ${g.members} members; only ${fullMembers} full members are seeded`);
    }
    state.directory.clear();
    const width = Math.max(5, String(seed.users).length);
    const ids: string[] = [];
    for (let i = 1; i <= seed.users; i += 1) {
      const n = String(i).padStart(width, '0');
      const guest = i > fullMembers + single ? 'multi' : i > fullMembers ? 'single' : undefined;
      ids.push(addUser(state, { userName: `user${n}`, email: `user${n}@example.com`, displayName: `User ${n}`, ...(guest ? { guest } : {}) }).id);
    }
    const groups = (seed.groups ?? []).map((g) => {
      const group = state.directory.createGroup(g.displayName, ids.slice(0, g.members), state.now());
      return { id: group.id, displayName: group.displayName, members: group.members.size };
    });
    return c.json({ ok: true, users: ids.length, firstUserId: ids[0] ?? null, lastUserId: ids.at(-1) ?? null, groups }, 201);
  });

  app.post('/users', async (c) => {
    const user = addUser(state, await parseJson(c.req.raw, controlUserSchema));
    return c.json(userView(user, [], ctx(c.req.raw)), 201);
  });

  const setActive = (id: string, active: boolean) => {
    const user = state.directory.user(id);
    if (!user) throw new ScimError('no_such_user', `no user ${id}`);
    return state.directory.saveUser({ ...user, active });
  };
  app.post('/users/:id/deactivate', (c) => c.json(userView(setActive(c.req.param('id'), false), [], ctx(c.req.raw))));
  app.post('/users/:id/reactivate', (c) => {
    const user = setActive(c.req.param('id'), true);
    return c.json(userView(user, state.directory.groupsOf(user.id), ctx(c.req.raw)));
  });
  app.delete('/users/:id', (c) => {
    if (!state.directory.removeUser(c.req.param('id'))) throw new ScimError('no_such_user', `no user ${c.req.param('id')}`);
    return c.json({ ok: true });
  });

  app.post('/groups', async (c) => {
    const input = await parseJson(c.req.raw, controlGroupSchema);
    const group = state.directory.createGroup(input.displayName, input.members ?? [], state.now());
    return c.json(
      groupView(group, (id) => state.directory.user(id), ctx(c.req.raw)),
      201,
    );
  });
  app.post('/groups/:id/members', async (c) => {
    const change = await parseJson(c.req.raw, memberChangeSchema);
    const group = state.directory.changeMembers(c.req.param('id'), [
      { kind: 'remove', ids: change.remove ?? [] },
      { kind: 'add', ids: change.add ?? [] },
    ]);
    return c.json({ ok: true, id: group.id, members: group.members.size });
  });
  app.put('/groups/:id/channels', async (c) => {
    const { linkedChannels } = await parseJson(c.req.raw, linkedChannelsSchema);
    const group = state.directory.group(c.req.param('id'));
    if (!group) throw new ScimError('no_such_group', `no group ${c.req.param('id')}`);
    group.linkedChannels = linkedChannels;
    return c.json({ ok: true, id: group.id, linkedChannels });
  });
  app.put('/workspace', async (c) => {
    state.workspaceRefusal = (await parseJson(c.req.raw, workspaceSchema)).refuse;
    return c.json({ ok: true, refuse: state.workspaceRefusal });
  });
  app.put('/versions', async (c) => {
    const input = await parseJson(c.req.raw, versionsSchema);
    state.versions = { v1: input.v1 ?? state.versions.v1, v2: input.v2 ?? state.versions.v2 };
    return c.json({ ok: true, versions: state.versions });
  });
  app.put('/rfc', async (c) => {
    const input = await parseJson(c.req.raw, rfcModesSchema);
    state.rfc = { trailingSlash404: input.trailingSlash404 ?? state.rfc.trailingSlash404, plainErrors: input.plainErrors ?? state.rfc.plainErrors };
    return c.json({ ok: true, rfc: state.rfc });
  });
  app.delete('/groups/:id', (c) => {
    if (!state.directory.deleteGroup(c.req.param('id'))) throw new ScimError('no_such_group', `no group ${c.req.param('id')}`);
    return c.json({ ok: true });
  });

  app.put('/clock', async (c) => {
    state.setClock((await parseJson(c.req.raw, clockSchema)).nowMs);
    return c.json({ nowMs: state.now(), fixed: true });
  });
  app.post('/clock/advance', async (c) => {
    state.setClock(state.now() + (await parseJson(c.req.raw, advanceSchema)).ms);
    return c.json({ nowMs: state.now(), fixed: true });
  });
  app.delete('/clock', (c) => {
    state.setClock(null);
    return c.json({ nowMs: state.now(), fixed: false });
  });

  app.put('/rate-limits', async (c) => {
    state.rateLimitsEnabled = (await parseJson(c.req.raw, rateLimitSwitchSchema)).enabled;
    state.limiter.reset();
    return c.json({ ok: true, enabled: state.rateLimitsEnabled });
  });

  app.put('/short-pages', async (c) => {
    const input = await parseJson(c.req.raw, shortPagesSchema);
    state.shortPages = { users: input.users ?? null, groups: input.groups ?? null };
    return c.json({ ok: true, shortPages: state.shortPages });
  });

  app.get('/faults', (c) => c.json({ faults: state.faults.list() }));
  app.post('/faults', async (c) => {
    const fault = state.faults.add(await parseJson(c.req.raw, scimFaultSchema));
    if (!fault) throw new InvalidControlRequest('too many faults registered; DELETE /_sim/faults first');
    return c.json(fault, 201);
  });
  app.delete('/faults', (c) => {
    state.faults.clear();
    return c.json({ ok: true });
  });

  app.get('/counters', (c) => c.json(state.counters.snapshot()));
  app.delete('/counters', (c) => {
    state.counters.clear();
    return c.json({ ok: true });
  });

  app.notFound((c) => c.json<ErrorBody>({ ok: false, error: 'not_found', detail: `no control route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof InvalidControlRequest) return c.json<ErrorBody>({ ok: false, error: 'invalid_request', detail: err.detail }, 400);
    if (err instanceof ScimError) {
      return new Response(JSON.stringify({ ok: false, error: err.code, detail: err.detail } satisfies ErrorBody), {
        status: err.status,
        headers: { 'Content-Type': 'application/json' },
      });
    }
    return c.json<ErrorBody>({ ok: false, error: 'internal', detail: err.message }, 500);
  });
  return app;
}
