/** Sessions of the admin pages: a signed cookie that holds its own expiry, and a CSRF token derived from it. */
import { createCursorCodec, randomSecret } from '../core/cursor.ts';

export const ADMIN_SESSION_COOKIE = 'statuswatch_admin';
export const ADMIN_SESSION_MS = 12 * 60 * 60 * 1000;

export type AdminSession = { id: string; expiresAt: number };

export type AdminSessions = {
  /** A new session and the cookie value that carries it. */
  issue(now: number): Promise<{ session: AdminSession; cookie: string }>;
  /** The session a cookie value stands for, or null when it is forged, malformed or expired. */
  read(cookie: string | undefined, now: number): Promise<AdminSession | null>;
  /** The token every admin form carries: the same for the whole session, useless for any other. */
  csrfToken(session: AdminSession): Promise<string>;
  checkCsrf(session: AdminSession, token: unknown): Promise<boolean>;
};

/**
 * Stateless: nothing is stored per session, so signing out only drops the browser's cookie. The
 * cursor codec already is an HMAC-signed, tamper-evident envelope (Web Crypto), so it signs these
 * too, under a key of its own; `k` keeps a session from passing for a CSRF token and back.
 */
export async function createAdminSessions(secret: string): Promise<AdminSessions> {
  const codec = await createCursorCodec(secret);
  return {
    async issue(now) {
      const session = { id: randomSecret(16), expiresAt: now + ADMIN_SESSION_MS };
      return { session, cookie: await codec.encode({ k: 'admin-session', s: session.id, e: session.expiresAt }) };
    },
    async read(cookie, now) {
      if (!cookie) return null;
      const payload = (await codec.decode(cookie)) as { k?: unknown; s?: unknown; e?: unknown } | null;
      if (payload?.k !== 'admin-session' || typeof payload.s !== 'string' || typeof payload.e !== 'number') return null;
      return now < payload.e ? { id: payload.s, expiresAt: payload.e } : null;
    },
    csrfToken: (session) => codec.encode({ k: 'admin-csrf', s: session.id }),
    async checkCsrf(session, token) {
      if (typeof token !== 'string' || token === '') return false;
      const payload = (await codec.decode(token)) as { k?: unknown; s?: unknown } | null;
      return payload?.k === 'admin-csrf' && payload.s === session.id;
    },
  };
}
