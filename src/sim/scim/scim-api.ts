/**
 * The SCIM service itself: version, bearer token, route, rate limits and faults, then the
 * resource handlers; every refusal in the version's error body.
 */
import { holdOpen, holdUntilDone } from '../held-requests.ts';
import { errorResponse, plainErrorResponse, ScimError, type ScimVersion } from './errors.ts';
import { allSchemas, groupSchema, resourceTypes, serviceProviderConfig, userSchemas } from './config-views.ts';
import { endlessPage } from './endless.ts';
import type { ScimFault } from './faults.ts';
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from './group-handlers.ts';
import { parsePaging } from './paging.ts';
import { rateScopes, resolveRoute, type ConfigPage, type ScimRoute } from './route-table.ts';
import type { ScimState } from './state.ts';
import { createUser, deactivateUser, getUser, listUsers, patchUser, replaceUser, type HandlerResult } from './user-handlers.ts';
import type { ViewContext } from './views.ts';

export const SCIM_PREFIX = '/scim';

// The largest legitimate body is a 15,000-member group (about 40 bytes a member); 4 MiB leaves room.
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

const json = (body: unknown, status: number): Response =>
  status === 204
    ? new Response(null, { status })
    : new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8' } });

/** "Bearer <token>" exactly; a missing header and a wrong one are different codes in the spec. */
function checkAuthorization(request: Request, token: string): void {
  const header = request.headers.get('authorization');
  if (header === null || header.trim() === '') throw new ScimError('missing_authentication', 'send Authorization: Bearer <token>');
  const match = /^Bearer (\S+)$/i.exec(header.trim());
  if (!match || match[1] !== token) throw new ScimError('invalid_authentication', 'the token is not valid or not sent as Bearer');
}

async function readBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new ScimError('invalid_request_payload', `body larger than ${MAX_BODY_BYTES} bytes`, 413);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new ScimError('invalid_request_payload', `body larger than ${MAX_BODY_BYTES} bytes`, 413);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ScimError('invalid_request_payload', 'the body is not JSON');
  }
}

function configPage(page: ConfigPage, ctx: ViewContext): unknown {
  switch (page) {
    case 'ServiceProviderConfigs':
    case 'ServiceProviderConfig':
      return serviceProviderConfig(ctx.version, ctx.baseUrl);
    case 'ResourceTypes':
      return resourceTypes(ctx.baseUrl);
    case 'Schemas':
      return allSchemas();
    case 'Schemas/Users':
      return userSchemas(ctx.version);
    case 'Schemas/Groups':
      return groupSchema(ctx.version);
  }
}

async function dispatch(state: ScimState, route: ScimRoute, request: Request, ctx: ViewContext, missingPage: boolean): Promise<HandlerResult> {
  const params = new URL(request.url).searchParams;
  if (route.endpoint === 'config') return { status: 200, body: configPage(route.page, ctx) };
  const id = route.id ?? '';
  switch (route.endpoint) {
    case 'users.list':
      return listUsers(state, params, ctx, missingPage);
    case 'users.get':
      return getUser(state, id, ctx);
    case 'users.create':
      return createUser(state, await readBody(request), ctx);
    case 'users.replace':
      return replaceUser(state, id, await readBody(request), ctx);
    case 'users.patch':
      return patchUser(state, id, await readBody(request), ctx);
    case 'users.delete':
      return deactivateUser(state, id);
    case 'groups.list':
      return listGroups(state, params, ctx, missingPage);
    case 'groups.get':
      return getGroup(state, id, ctx);
    case 'groups.create':
      return createGroup(state, await readBody(request), ctx);
    case 'groups.replace':
      return replaceGroup(state, id, await readBody(request), ctx);
    case 'groups.patch':
      return patchGroup(state, id, await readBody(request), ctx);
    case 'groups.delete':
      return deleteGroup(state, id);
  }
}

function faultResponse(fault: ScimFault, version: ScimVersion, request: Request, state: ScimState): Promise<Response> | Response {
  switch (fault.kind) {
    case 'rate-limit':
      return errorResponse(version, 'too_many_requests', 429, { 'Retry-After': String(fault.retryAfterSeconds ?? 1) });
    case 'status': {
      const status = fault.status ?? 500;
      // The spec lists no code for a server fault; a 429 or 503 tells a polite client when to come back.
      const headers: Record<string, string> = status === 429 || status === 503 ? { 'Retry-After': String(fault.retryAfterSeconds ?? 1) } : {};
      if (state.rfc.plainErrors && version === 'v2' && status !== 429)
        return plainErrorResponse(status, `The service met a condition it did not expect (HTTP ${status})`);
      return errorResponse(version, status === 429 ? 'too_many_requests' : 'internal_error', status, headers);
    }
    case 'timeout':
      return holdOpen(request, state.held);
    case 'missing-page':
    case 'endless':
    case 'delay':
      throw new Error(`${fault.kind} is answered around the handler`);
    case 'redirect':
      return new Response(null, { status: 302, headers: { Location: `http://elsewhere.invalid${new URL(request.url).pathname}` } });
    case 'body':
      return new Response(fault.body ?? '', { status: fault.status ?? 200, headers: { 'Content-Type': 'application/scim+json' } });
  }
}

/** Past auth, routing and rate limits: an injected fault, or the handler's answer. */
async function answer(state: ScimState, route: ScimRoute, request: Request, version: ScimVersion, url: URL): Promise<Response> {
  const isList = route.endpoint === 'users.list' || route.endpoint === 'groups.list';
  const startIndex = isList ? Number(url.searchParams.get('startIndex') ?? '1') : null;
  const fault = state.faults.take(route.endpoint, startIndex);
  if (fault) {
    state.counters.count(route.endpoint, 'faulted');
    if (fault.kind === 'rate-limit' || (fault.kind === 'status' && fault.status === 429)) state.counters.count(route.endpoint, 'rateLimited');
    if (fault.kind === 'endless' && isList) {
      const kind = route.endpoint === 'users.list' ? 'users' : 'groups';
      return json(endlessPage(version, kind, parsePaging(url.searchParams), fault.totalResults, state.shortPages[kind]), 200);
    }
    if (fault.kind === 'delay') await holdUntilDone(request, state.held, fault.delayMs ?? 1000);
    // A missing page is the list handler's to answer, and an endless one changes nothing but a list.
    else if (fault.kind !== 'missing-page' && fault.kind !== 'endless') return await faultResponse(fault, version, request, state);
  }
  const ctx: ViewContext = { version, baseUrl: url.origin };
  const result = await dispatch(state, route, request, ctx, fault?.kind === 'missing-page' && isList);
  return json(result.body, result.status);
}

export async function handleScimRequest(state: ScimState, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const match = /^\/scim\/([^/]*)(\/.*)?$/.exec(url.pathname);
  const versionText = match?.[1] ?? '';
  const version: ScimVersion = versionText === 'v1' ? 'v1' : 'v2';
  try {
    if ((versionText !== 'v1' && versionText !== 'v2') || !state.versions[versionText])
      throw new ScimError('unsupported_version', `SCIM version ${JSON.stringify(versionText)} is not supported; use /scim/v1 or /scim/v2`);
    checkAuthorization(request, state.token);
    if (state.workspaceRefusal !== null) throw new ScimError(state.workspaceRefusal, 'the workspace refuses SCIM calls (set by the control API)');
    const rest = match?.[2] ?? '';
    const route = resolveRoute(version, request.method, rest);
    if (state.rfc.trailingSlash404 && route.endpoint !== 'config' && route.id === null && rest.endsWith('/')) {
      throw new ScimError('bad_endpoint', `Resource ${url.pathname} not found`);
    }
    state.counters.count(route.endpoint, 'requests');
    if (state.rateLimitsEnabled) {
      const decision = state.limiter.take(rateScopes(route.endpoint), state.now());
      if (!decision.allowed) {
        state.counters.count(route.endpoint, 'rateLimited');
        return errorResponse(version, 'too_many_requests', 429, { 'Retry-After': String(decision.retryAfterSeconds) });
      }
    }
    // "A non-GET request to a user or group still being updated by an earlier request yields
    // HTTP 429 with a retry-after header": the resource is held from here to the answer.
    const lockKey = request.method !== 'GET' && route.endpoint !== 'config' && route.id !== null ? `${route.endpoint.split('.')[0]}:${route.id}` : null;
    if (lockKey !== null && state.updating.has(lockKey)) {
      state.counters.count(route.endpoint, 'rateLimited');
      return errorResponse(version, 'resource_locked', 429, { 'Retry-After': '1' });
    }
    if (lockKey !== null) state.updating.add(lockKey);
    try {
      return await answer(state, route, request, version, url);
    } finally {
      if (lockKey !== null) state.updating.delete(lockKey);
    }
  } catch (error) {
    if (error instanceof ScimError) {
      if (state.rfc.plainErrors && version === 'v2') return plainErrorResponse(error.status, error.detail);
      return errorResponse(version, error.code, error.status);
    }
    return errorResponse(version, 'internal_error', 500);
  }
}
