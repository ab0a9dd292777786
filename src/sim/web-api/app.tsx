/** The simulated vendor Web API as a runtime-free Hono app: `/api/<method>`, the install's authorize step, the `/_sim` control API, and the channel pages. */
import { Hono } from 'hono';
import { apiErrorResponse, ApiError } from './api-error.ts';
import { apiRoutes } from './api-routes.ts';
import { AUTHORIZE_PATH, authorizeRoute } from './authorize-route.ts';
import { reloadOf } from '../catcher-page.ts';
import { ChannelPage, IndexPage, newScriptNonce, pageHeaders } from './channel-page.tsx';
import { WEB_API_CONTROL_PREFIX, webApiControlRoutes } from './control-routes.ts';
import { createWebApiState, type SimulatedWebApiOptions, type WebApiState } from './state.ts';

export type { SimulatedWebApiOptions } from './state.ts';

export type SimulatedWebApi = {
  readonly app: Hono;
  fetch(request: Request): Response | Promise<Response>;
  /** The state the control API drives, for in-process callers. */
  readonly state: WebApiState;
  /** Ends every held-open response (timeout faults). */
  close(): void;
};

function pageRoutes(state: WebApiState): Hono {
  const app = new Hono();
  // Pages render synchronously (no async components), so the element's string is the whole page.
  const html = (page: { toString(): string }, scriptNonce = newScriptNonce()): Response =>
    new Response(`<!doctype html>${page.toString()}`, { status: 200, headers: pageHeaders(scriptNonce) });
  app.get('/', () =>
    html(<IndexPage workspaces={state.workspaces.list().map((workspace) => ({ workspace, channels: state.channels.ofTeam(workspace.teamId) }))} />),
  );
  app.get('/channels/:channelId', (c) => {
    const channel = state.channels.get(c.req.param('channelId'));
    const workspace = channel && state.workspaces.get(channel.teamId);
    if (!channel || !workspace) return notFound(`no channel ${c.req.param('channelId')}`);
    const scriptNonce = newScriptNonce();
    return html(
      <ChannelPage
        channel={channel}
        workspace={workspace}
        roots={state.channels.roots(channel)}
        repliesOf={(ts) => state.channels.replies(channel, ts)}
        scriptNonce={scriptNonce}
        reload={reloadOf(c.req.url)}
      />,
      scriptNonce,
    );
  });
  app.notFound((c) => notFound(`no page ${c.req.path}`));
  return app;
}

const notFound = (detail: string): Response =>
  new Response(JSON.stringify({ ok: false, error: 'not_found', detail }), { status: 404, headers: { 'Content-Type': 'application/json; charset=utf-8' } });

export function createSimulatedWebApi(options: SimulatedWebApiOptions = {}): SimulatedWebApi {
  const state = createWebApiState(options);
  const api = apiRoutes(state);
  const control = webApiControlRoutes(state);
  const pages = pageRoutes(state);
  const authorize = authorizeRoute(state);
  const app = new Hono();
  app.all('*', (c) => {
    const path = c.req.path;
    if (path === WEB_API_CONTROL_PREFIX || path.startsWith(`${WEB_API_CONTROL_PREFIX}/`)) return control.fetch(c.req.raw);
    if (path.startsWith('/api/')) return api.fetch(c.req.raw);
    if (path === AUTHORIZE_PATH) return authorize.fetch(c.req.raw);
    return pages.fetch(c.req.raw);
  });
  app.onError((error) => apiErrorResponse(new ApiError('internal_error', error.message, 500)));
  return { app, fetch: (request) => app.fetch(request), state, close: () => state.held.releaseAll() };
}
