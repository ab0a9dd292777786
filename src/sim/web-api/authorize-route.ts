/**
 * `GET /oauth/v2/authorize`, where an install starts: the sim approves at once (as if the person
 * clicked Allow) and redirects to redirect_uri with a code and the state, or with
 * error=access_denied when asked to refuse (`deny=1`). Bad requests get the one error shape.
 */
import { Hono } from 'hono';
import type { WebApiState } from './state.ts';

export const AUTHORIZE_PATH = '/oauth/v2/authorize';

const SCOPE = /^[a-z.:_-]{1,64}$/;
const SCOPES_MAX = 100;

const refuse = (error: string, detail: string): Response =>
  new Response(JSON.stringify({ ok: false, error, detail }), { status: 400, headers: { 'Content-Type': 'application/json; charset=utf-8' } });

export function authorizeRoute(state: WebApiState): Hono {
  const app = new Hono();
  app.get(AUTHORIZE_PATH, (c) => {
    const query = new URL(c.req.url).searchParams;
    if (query.get('client_id') !== state.app.clientId) return refuse('invalid_client_id', 'client_id is missing or not this app\u2019s');
    // Kept as given: oauth.v2.access compares the redirect_uri it gets with this exact text.
    const redirectUri = query.get('redirect_uri') ?? '';
    let redirect: URL;
    try {
      redirect = new URL(redirectUri);
    } catch {
      return refuse('bad_redirect_uri', 'redirect_uri must be an absolute http(s) URL');
    }
    if (redirect.protocol !== 'https:' && redirect.protocol !== 'http:') return refuse('bad_redirect_uri', 'redirect_uri must be an absolute http(s) URL');
    const teamId = query.get('team');
    const workspace = teamId ? state.workspaces.get(teamId) : state.workspaces.list()[0];
    if (!workspace) return refuse('team_not_found', teamId ? `no workspace ${teamId}` : 'no workspace yet: create one with POST /_sim/workspaces');
    const scopeText = query.get('scope');
    const scopes = scopeText
      ? scopeText
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : null;
    if (scopes && (scopes.length > SCOPES_MAX || !scopes.every((s) => SCOPE.test(s))))
      return refuse('invalid_scope', 'scope is a comma-separated list of scopes such as chat:write');

    const clientState = query.get('state');
    if (query.get('deny') === '1') {
      redirect.searchParams.set('error', 'access_denied');
    } else {
      const entry = state.tokens.issueCode(workspace.teamId, { redirectUri, scopes }, state.now());
      redirect.searchParams.set('code', entry.code);
    }
    if (clientState !== null) redirect.searchParams.set('state', clientState);
    return new Response(null, { status: 302, headers: { Location: redirect.toString(), 'Cache-Control': 'no-store' } });
  });
  return app;
}
