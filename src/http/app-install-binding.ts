/**
 * Binds an install's OAuth state to the browser of the admin who started it. The admin
 * session's cookie is SameSite=Strict on /admin, so the vendor's redirect back to the callback
 * never carries it; this cookie, made when an admin session starts the install, is sent to the
 * callback path (SameSite=Lax lets a top-level redirect carry it) and lives as long as a state.
 *
 * One secret per browser, not per install: a copy of the cookie on the start path lets the next
 * start in the same browser bind its state to the same secret, so every install tab of that
 * browser can finish, whichever finishes first.
 */
import { OAUTH_STATE_TTL_MS, sha256Hex } from '../app/workspace-app/installs.ts';
import { randomSecret } from '../core/cursor.ts';
import { APP_PATHS } from '../core/workspace-app/manifest.ts';
import { adminCookies } from './admin-session.ts';

/** Where an install starts: the admin page's "Add to workspace" link. */
export const INSTALL_START_PATH = '/admin/app/install';

const SECRET_BYTES = 24;
/** randomSecret(SECRET_BYTES) in base64url: anything else in the cookie is not ours. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function installBindingCookie(publicUrl: string | undefined) {
  const { secure } = adminCookies(publicUrl);
  const options = { httpOnly: true, sameSite: 'Lax' as const, secure, maxAge: OAUTH_STATE_TTL_MS / 1000 };
  return {
    name: `${secure ? '__Secure-' : ''}statuswatch_app_install`,
    /** The copy the callback reads. */
    callback: { ...options, path: APP_PATHS.oauthRedirect },
    /** The copy the next start in this browser reads back. */
    start: { ...options, path: INSTALL_START_PATH },
  };
}

/**
 * This browser's secret for the cookie (the one it shows, else a new one) and its hash for the
 * store (the store never holds the secret).
 */
export async function browserInstallBinding(shown: string | undefined): Promise<{ cookieValue: string; binding: string }> {
  const cookieValue = shown && SECRET_PATTERN.test(shown) ? shown : randomSecret(SECRET_BYTES);
  return { cookieValue, binding: await sha256Hex(cookieValue) };
}

/** The binding a callback shows: the hash of its cookie, or null without one. */
export async function presentedBinding(cookieValue: string | undefined): Promise<string | null> {
  return cookieValue ? sha256Hex(cookieValue) : null;
}
