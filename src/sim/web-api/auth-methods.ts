/** auth.test (who a token is), auth.revoke (end one token) and apps.uninstall (end the installation). */
import { checkClientCredentials } from './client-credentials.ts';
import type { MethodSpec } from './method-types.ts';
import { booleanArg } from './request-params.ts';

export const authTest: MethodSpec = {
  auth: 'token',
  scope: () => null,
  run({ token, workspace, origin }) {
    const isBot = token.tokenType === 'bot';
    return {
      ok: true,
      url: `${origin}/`,
      team: workspace.name,
      user: isBot ? workspace.botName : token.userId,
      team_id: workspace.teamId,
      user_id: token.userId,
      ...(isBot ? { bot_id: workspace.botId } : {}),
      ...(workspace.enterprise ? { enterprise_id: workspace.enterprise.id } : {}),
      is_enterprise_install: false,
    };
  },
};

export const authRevoke: MethodSpec = {
  auth: 'token',
  scope: () => null,
  run({ state, params, token, workspace, nowMs }) {
    // `test` asks whether the token could be revoked without revoking it.
    if (booleanArg(params, 'test')) return { ok: true, revoked: false };
    if (state.app.tokenRotationEnabled) {
      // With rotation, one token ends; the installation stays and new tokens can still be made.
      state.tokens.revoke(token, 'auth.revoke', nowMs);
    } else {
      // Without rotation the whole authorization ends: the app must be installed again.
      state.tokens.revokeAll(workspace.teamId, nowMs);
      workspace.status = 'uninstalled';
    }
    return { ok: true, revoked: true };
  },
};

export const appsUninstall: MethodSpec = {
  auth: 'token',
  scope: () => null,
  run({ state, params, workspace, nowMs }) {
    checkClientCredentials(params, state.app);
    state.tokens.revokeAll(workspace.teamId, nowMs);
    workspace.status = 'uninstalled';
    return { ok: true };
  },
};
