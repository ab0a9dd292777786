/** The simulated app's credentials and the tunable rules (lifetimes, grace, page shapes) a test may change. */
import { newClientId, newClientSecret, newObjectId } from './ids.ts';

/** The vendor's values; tests shorten them so rotations happen in seconds. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 43_200;
/** "Revoked after a short grace period": the spec gives no figure; a few seconds covers a retried request. */
export const DEFAULT_REFRESH_GRACE_MS = 10_000;
/** "Cursors expire; do not keep them for hours": a quarter of an hour is comfortably inside that. */
export const DEFAULT_CURSOR_LIFETIME_MS = 15 * 60_000;
/** How long an OAuth code may wait for oauth.v2.access. */
export const AUTH_CODE_LIFETIME_MS = 10 * 60_000;

export type SimApp = {
  clientId: string;
  clientSecret: string;
  appId: string;
  /** Once on it cannot be turned off again (States and transitions, last row). */
  tokenRotationEnabled: boolean;
};

/** How an empty next_cursor is sent: the spec allows all three, so a client must accept each. */
export type EndCursorForm = 'empty' | 'null' | 'absent';

export type WebApiSettings = {
  accessTokenLifetimeSeconds: number;
  refreshGraceMs: number;
  cursorLifetimeMs: number;
  /** At most this many items per page whatever `limit` says (the spec allows fewer than asked); null: up to limit. */
  maxPageItems: number | null;
  endCursor: EndCursorForm;
};

export const defaultSettings = (): WebApiSettings => ({
  accessTokenLifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
  refreshGraceMs: DEFAULT_REFRESH_GRACE_MS,
  cursorLifetimeMs: DEFAULT_CURSOR_LIFETIME_MS,
  maxPageItems: null,
  endCursor: 'empty',
});

export const newSimApp = (fields: Partial<SimApp> = {}): SimApp => ({
  clientId: fields.clientId ?? newClientId(),
  clientSecret: fields.clientSecret ?? newClientSecret(),
  appId: fields.appId ?? newObjectId('A'),
  tokenRotationEnabled: fields.tokenRotationEnabled ?? true,
});
