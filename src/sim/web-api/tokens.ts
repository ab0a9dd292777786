/**
 * The token state machine of the spec ("Token states"): long-lived tokens, their one exchange for
 * an expiring access token plus a single-use refresh token, refreshes with a grace period, the
 * limit of two active tokens, revocation and uninstall. Every decision takes `nowMs`.
 */
import { ApiError } from './api-error.ts';
import { newAuthCode, newExpiringToken, newLongLivedToken, newRefreshToken } from './ids.ts';
import { AUTH_CODE_LIFETIME_MS, type WebApiSettings } from './settings.ts';
import { recordMisuse, type MisuseKind } from './token-misuse.ts';
import type { Workspace, WorkspaceBook } from './workspaces.ts';

/** "Active tokens per installation after repeated refreshes: 2 (oldest extra revoked)". */
export const ACTIVE_EXPIRING_TOKENS_MAX = 2;
/**
 * Token records kept per workspace, oldest forgotten first. A forgotten token answers as unknown
 * (invalid_auth, invalid_refresh_token) and is no longer counted as misuse: 500 records are 250
 * rotations, far more than any client keeps an old token around for.
 */
export const TOKENS_PER_WORKSPACE_MAX = 500;
/** Outstanding OAuth codes; the oldest goes first. */
export const AUTH_CODES_MAX = 1000;

export type TokenType = 'bot' | 'user';
export type RevokeCause = 'auth.revoke' | 'apps.uninstall' | 'active_limit';

export type AccessToken = {
  kind: 'access';
  value: string;
  teamId: string;
  tokenType: TokenType;
  /** The bot user id, or the user the token acts for. */
  userId: string;
  expiring: boolean;
  issuedAtMs: number;
  expiresAtMs: number | null;
  revokedAtMs: number | null;
  revokedBy: RevokeCause | null;
  /** A long-lived token that went through oauth.v2.exchange: it cannot go again. */
  exchanged: boolean;
};

export type RefreshToken = {
  kind: 'refresh';
  value: string;
  teamId: string;
  tokenType: TokenType;
  userId: string;
  issuedAtMs: number;
  usedAtMs: number | null;
  revokedAtMs: number | null;
};

export type Grant = { access: AccessToken; refresh: RefreshToken | null; workspace: Workspace };

export type AuthCode = { code: string; teamId: string; redirectUri: string | null; scopes: string[] | null; issuedAtMs: number; usedAtMs: number | null };

export type TokenBook = {
  issueLongLived(workspace: Workspace, tokenType: TokenType, userId: string, nowMs: number): AccessToken;
  issuePair(workspace: Workspace, tokenType: TokenType, userId: string, nowMs: number, settings: WebApiSettings): Grant;
  /** oauth.v2.exchange of a long-lived token. */
  exchange(tokenValue: string, nowMs: number, settings: WebApiSettings): Grant;
  /** oauth.v2.access with grant_type refresh_token. */
  refresh(refreshValue: string, nowMs: number, settings: WebApiSettings): Grant;
  /** The token a method call may act with, or the vendor's error (counting misuse). */
  authenticate(tokenValue: string | null, method: string, nowMs: number): { token: AccessToken; workspace: Workspace };
  revoke(token: AccessToken, cause: RevokeCause, nowMs: number): void;
  /** Every token of the workspace, access and refresh: apps.uninstall, auth.revoke without rotation. */
  revokeAll(teamId: string, nowMs: number): void;
  /** Access tokens usable at `nowMs`. */
  activeAccessTokens(teamId: string, nowMs: number): AccessToken[];
  issueCode(teamId: string, fields: { redirectUri: string | null; scopes: string[] | null }, nowMs: number): AuthCode;
  /** Marks the code used; throws invalid_code / bad_redirect_uri. */
  redeemCode(code: string, redirectUri: string | null, nowMs: number): AuthCode;
  readonly size: number;
};

const isUsable = (token: AccessToken, nowMs: number): boolean => token.revokedAtMs === null && (token.expiresAtMs === null || nowMs < token.expiresAtMs);

export function createTokenBook(workspaces: WorkspaceBook): TokenBook {
  const tokens = new Map<string, AccessToken | RefreshToken>();
  // Issue order per workspace, for the cap and for "oldest extra revoked".
  const byTeam = new Map<string, string[]>();
  const codes = new Map<string, AuthCode>();

  const remember = (record: AccessToken | RefreshToken): void => {
    tokens.set(record.value, record);
    const list = byTeam.get(record.teamId) ?? [];
    list.push(record.value);
    byTeam.set(record.teamId, list);
    while (list.length > TOKENS_PER_WORKSPACE_MAX) tokens.delete(list.shift()!);
  };
  const teamTokens = (teamId: string): Array<AccessToken | RefreshToken> =>
    (byTeam.get(teamId) ?? []).map((value) => tokens.get(value)).filter((t) => t !== undefined);

  const misuse = (teamId: string, kind: MisuseKind, method: string, nowMs: number): void => {
    const workspace = workspaces.get(teamId);
    if (workspace) recordMisuse(workspace.misuse, { atMs: nowMs, kind, method });
  };

  const workspaceOf = (teamId: string): Workspace => {
    const workspace = workspaces.get(teamId);
    if (!workspace) throw new Error(`token of unknown workspace ${teamId}`); // workspaces are never deleted
    return workspace;
  };

  const accessToken = (workspace: Workspace, tokenType: TokenType, userId: string, nowMs: number, lifetimeSeconds: number | null): AccessToken => {
    const token: AccessToken = {
      kind: 'access',
      value: lifetimeSeconds === null ? newLongLivedToken(tokenType) : newExpiringToken(tokenType),
      teamId: workspace.teamId,
      tokenType,
      userId,
      expiring: lifetimeSeconds !== null,
      issuedAtMs: nowMs,
      expiresAtMs: lifetimeSeconds === null ? null : nowMs + lifetimeSeconds * 1000,
      revokedAtMs: null,
      revokedBy: null,
      exchanged: false,
    };
    remember(token);
    return token;
  };

  const book: TokenBook = {
    issueLongLived: (workspace, tokenType, userId, nowMs) => accessToken(workspace, tokenType, userId, nowMs, null),

    issuePair(workspace, tokenType, userId, nowMs, settings) {
      const access = accessToken(workspace, tokenType, userId, nowMs, settings.accessTokenLifetimeSeconds);
      const refresh: RefreshToken = {
        kind: 'refresh',
        value: newRefreshToken(),
        teamId: workspace.teamId,
        tokenType,
        userId,
        issuedAtMs: nowMs,
        usedAtMs: null,
        revokedAtMs: null,
      };
      remember(refresh);
      return { access, refresh, workspace };
    },

    exchange(tokenValue, nowMs, settings) {
      const token = tokens.get(tokenValue);
      if (token?.kind !== 'access') throw new ApiError('invalid_token', 'the token given is not a token this workspace issued');
      if (token.expiring) throw new ApiError('invalid_token', 'only a long-lived (xoxb-/xoxp-) token can be exchanged; this one already expires');
      // A call with a revoked or expired token is counted whichever refusal it gets.
      const expired = token.expiresAtMs !== null && nowMs >= token.expiresAtMs;
      if (token.revokedAtMs !== null) misuse(token.teamId, 'revokedTokenCalls', 'oauth.v2.exchange', nowMs);
      else if (expired) misuse(token.teamId, 'expiredTokenCalls', 'oauth.v2.exchange', nowMs);
      if (token.exchanged) throw new ApiError('token_already_exchanged', 'this token was exchanged before; the same token cannot be exchanged twice');
      if (token.revokedAtMs !== null) throw new ApiError('authorization_not_found', `the token was revoked (${token.revokedBy})`);
      if (expired) throw new ApiError('authorization_not_found', 'the token has expired');
      const workspace = workspaceOf(token.teamId);
      token.exchanged = true;
      workspace.stats.exchanges += 1;
      return book.issuePair(workspace, token.tokenType, token.userId, nowMs, settings);
    },

    refresh(refreshValue, nowMs, settings) {
      const token = tokens.get(refreshValue);
      if (token?.kind !== 'refresh') throw new ApiError('invalid_refresh_token', 'not a refresh token this app issued');
      if (token.revokedAtMs !== null) {
        misuse(token.teamId, 'revokedRefreshUsed', 'oauth.v2.access', nowMs);
        throw new ApiError('invalid_refresh_token', 'the refresh token was revoked (the app was uninstalled or its authorization revoked)');
      }
      if (token.usedAtMs !== null) {
        // Spent: still honoured during the grace period (a retried request), refused after it.
        const inGrace = nowMs < token.usedAtMs + settings.refreshGraceMs;
        misuse(token.teamId, inGrace ? 'refreshReusedInGrace' : 'refreshReusedAfterGrace', 'oauth.v2.access', nowMs);
        if (!inGrace) throw new ApiError('invalid_refresh_token', `the refresh token was used ${nowMs - token.usedAtMs} ms ago; refresh tokens are single use`);
      } else {
        token.usedAtMs = nowMs;
      }
      const workspace = workspaceOf(token.teamId);
      const grant = book.issuePair(workspace, token.tokenType, token.userId, nowMs, settings);
      workspace.stats.refreshes += 1;
      for (const other of teamTokens(token.teamId)) {
        if (other.kind !== 'access' || other.userId !== token.userId) continue;
        // "Original long-lived token expires after the first refresh of the short-lived credentials."
        if (other.exchanged && (other.expiresAtMs === null || other.expiresAtMs > nowMs)) other.expiresAtMs = nowMs;
      }
      const active = book.activeAccessTokens(token.teamId, nowMs).filter((t) => t.expiring && t.userId === token.userId);
      for (const extra of active.slice(0, Math.max(0, active.length - ACTIVE_EXPIRING_TOKENS_MAX))) book.revoke(extra, 'active_limit', nowMs);
      return grant;
    },

    authenticate(tokenValue, method, nowMs) {
      if (tokenValue === null || tokenValue === '') throw new ApiError('not_authed', 'no token: send Authorization: Bearer <token>');
      const token = tokens.get(tokenValue);
      if (!token) throw new ApiError('invalid_auth', 'the token is not one this workspace issued (or was forgotten long ago)');
      if (token.kind !== 'access') throw new ApiError('invalid_auth', 'a refresh token cannot call methods; use it with oauth.v2.access');
      if (token.revokedAtMs !== null) {
        misuse(token.teamId, 'revokedTokenCalls', method, nowMs);
        throw new ApiError('token_revoked', `the token was revoked (${token.revokedBy})`);
      }
      if (token.expiresAtMs !== null && nowMs >= token.expiresAtMs) {
        misuse(token.teamId, 'expiredTokenCalls', method, nowMs);
        throw new ApiError('token_expired', `the token expired ${nowMs - token.expiresAtMs} ms ago`);
      }
      return { token, workspace: workspaceOf(token.teamId) };
    },

    revoke(token, cause, nowMs) {
      if (token.revokedAtMs !== null) return;
      token.revokedAtMs = nowMs;
      token.revokedBy = cause;
    },

    revokeAll(teamId, nowMs) {
      for (const token of teamTokens(teamId)) {
        if (token.kind === 'access') book.revoke(token, 'apps.uninstall', nowMs);
        else token.revokedAtMs ??= nowMs;
      }
    },

    activeAccessTokens: (teamId, nowMs) =>
      teamTokens(teamId)
        .filter((t): t is AccessToken => t.kind === 'access' && isUsable(t, nowMs))
        .sort((a, b) => a.issuedAtMs - b.issuedAtMs),

    issueCode(teamId, fields, nowMs) {
      for (const [code, entry] of codes) if (nowMs >= entry.issuedAtMs + AUTH_CODE_LIFETIME_MS) codes.delete(code);
      while (codes.size >= AUTH_CODES_MAX) codes.delete(codes.keys().next().value!);
      const entry: AuthCode = { code: newAuthCode(), teamId, redirectUri: fields.redirectUri, scopes: fields.scopes, issuedAtMs: nowMs, usedAtMs: null };
      codes.set(entry.code, entry);
      return entry;
    },

    redeemCode(code, redirectUri, nowMs) {
      const entry = codes.get(code);
      if (!entry || nowMs >= entry.issuedAtMs + AUTH_CODE_LIFETIME_MS)
        throw new ApiError('invalid_code', 'the code is unknown or expired (codes last 10 minutes)');
      if (entry.usedAtMs !== null) throw new ApiError('invalid_code', 'the code was already used; a code is good for one oauth.v2.access');
      if (entry.redirectUri !== null && entry.redirectUri !== redirectUri) {
        throw new ApiError('bad_redirect_uri', 'redirect_uri must be the one the authorization was started with');
      }
      entry.usedAtMs = nowMs;
      return entry;
    },

    get size() {
      return tokens.size;
    },
  };
  return book;
}
