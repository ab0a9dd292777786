/** oauth.v2.access (an install's code, or a refresh token) and oauth.v2.exchange (a long-lived token for a rotating pair). */
import { ApiError } from './api-error.ts';
import { checkClientCredentials } from './client-credentials.ts';
import type { CallContext, MethodSpec, OkBody } from './method-types.ts';
import { requiredArg, stringArg } from './request-params.ts';
import { tokenResponse } from './token-response.ts';

function installWithCode(ctx: CallContext, code: string): OkBody {
  const { state, nowMs } = ctx;
  const entry = state.tokens.redeemCode(code, stringArg(ctx.params, 'redirect_uri'), nowMs);
  const workspace = state.workspaces.get(entry.teamId)!;
  workspace.status = 'installed';
  workspace.installedAtMs = nowMs;
  if (entry.scopes) workspace.scopes = [...entry.scopes];
  workspace.stats.codeInstalls += 1;
  // With rotation on, an install gives an expiring token and a refresh token straight away.
  const grant = state.app.tokenRotationEnabled
    ? state.tokens.issuePair(workspace, 'bot', workspace.botUserId, nowMs, state.settings)
    : { access: state.tokens.issueLongLived(workspace, 'bot', workspace.botUserId, nowMs), refresh: null, workspace };
  return { ...tokenResponse(grant, state.app, state.settings), authed_user: { id: workspace.installerUserId } };
}

export const oauthV2Access: MethodSpec = {
  auth: 'client',
  formOnly: true,
  run(ctx) {
    checkClientCredentials(ctx.params, ctx.state.app);
    const grantType = stringArg(ctx.params, 'grant_type') ?? 'authorization_code';
    if (grantType === 'refresh_token') {
      const grant = ctx.state.tokens.refresh(requiredArg(ctx.params, 'refresh_token'), ctx.nowMs, ctx.state.settings);
      return tokenResponse(grant, ctx.state.app, ctx.state.settings);
    }
    if (grantType !== 'authorization_code')
      throw new ApiError('invalid_grant_type', `grant_type must be authorization_code or refresh_token, not ${grantType}`);
    const code = stringArg(ctx.params, 'code');
    if (code === null) throw new ApiError('invalid_code', 'code is required (or grant_type=refresh_token with refresh_token)');
    return installWithCode(ctx, code);
  },
};

export const oauthV2Exchange: MethodSpec = {
  auth: 'client',
  formOnly: true,
  run(ctx) {
    checkClientCredentials(ctx.params, ctx.state.app);
    // The token to exchange is a request field, not the caller's credential.
    const token = requiredArg(ctx.params, 'token');
    if (!ctx.state.app.tokenRotationEnabled) throw new ApiError('token_rotation_not_enabled', 'the app does not have token rotation enabled');
    const grant = ctx.state.tokens.exchange(token, ctx.nowMs, ctx.state.settings);
    return tokenResponse(grant, ctx.state.app, ctx.state.settings);
  },
};
