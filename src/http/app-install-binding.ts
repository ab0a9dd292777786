/**
 * Binds an install's OAuth state to the browser of the admin who started it (issue 10). The admin
 * session's cookie is SameSite=Strict on /admin, so the vendor's redirect back to the callback
 * never carries it; this cookie, made when an admin session starts the install, is sent to the
 * callback path only (SameSite=Lax lets a top-level redirect carry it) and lives as long as a state.
 */
import { sha256Hex, OAUTH_STATE_TTL_MS } from '../app/app-installs.ts';
import { randomSecret } from '../core/cursor.ts';
import { APP_PATHS } from '../core/statuswatch-app-manifest.ts';
import { adminCookies } from './admin-session.ts';

export function installBindingCookie(publicUrl: string | undefined) {
  const { secure } = adminCookies(publicUrl);
  return {
    name: `${secure ? '__Secure-' : ''}statuswatch_app_install`,
    options: { httpOnly: true, sameSite: 'Lax' as const, secure, path: APP_PATHS.oauthRedirect, maxAge: OAUTH_STATE_TTL_MS / 1000 },
  };
}

/** A new secret for the cookie, and its hash for the store (the store never holds the secret). */
export async function newInstallBinding(): Promise<{ cookieValue: string; binding: string }> {
  const cookieValue = randomSecret(24);
  return { cookieValue, binding: await sha256Hex(cookieValue) };
}

/** The binding a callback shows: the hash of its cookie, or null without one. */
export async function presentedBinding(cookieValue: string | undefined): Promise<string | null> {
  return cookieValue ? sha256Hex(cookieValue) : null;
}
