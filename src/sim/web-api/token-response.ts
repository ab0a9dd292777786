/** The spec's "Token response": what oauth.v2.exchange, oauth.v2.access (refresh) and a rotating install answer. */
import type { OkBody } from './method-types.ts';
import type { SimApp, WebApiSettings } from './settings.ts';
import type { Grant } from './tokens.ts';

export function tokenResponse(grant: Grant, app: SimApp, settings: WebApiSettings): OkBody {
  const { access, refresh, workspace } = grant;
  const scope = workspace.scopes.join(',');
  const rotating = access.expiring && refresh !== null ? { expires_in: settings.accessTokenLifetimeSeconds, refresh_token: refresh.value } : {};
  if (access.tokenType === 'user') {
    // "For user tokens the refresh response carries id, scope, access_token, expires_in, refresh_token and token_type."
    return { ok: true, id: access.userId, scope, access_token: access.value, ...rotating, token_type: 'user' };
  }
  return {
    ok: true,
    access_token: access.value,
    ...rotating,
    token_type: 'bot',
    scope,
    bot_user_id: workspace.botUserId,
    app_id: app.appId,
    team: { name: workspace.name, id: workspace.teamId },
    // The vendor sends null for a workspace outside an enterprise organization.
    enterprise: workspace.enterprise,
    is_enterprise_install: false,
  };
}
