/**
 * Sessions of the admin pages, kept server-side: the cookie carries a random id, the store keeps
 * its hash, so signing out or changing ADMIN_TOKEN really ends a session. Web Crypto only.
 */
import { toBase64Url } from '../core/bytes.ts';
import { createCursorCodec, randomSecret } from '../core/cursor.ts';
import type { AdminAccessStore } from '../core/ports.ts';

export const ADMIN_SESSION_MS = 12 * 60 * 60 * 1000;
/** Sessions kept at once; signing in again past this ends the oldest. */
export const MAX_LIVE_ADMIN_SESSIONS = 100;

/**
 * The cookie's name and whether it is Secure: exactly when PUBLIC_URL is https, whatever scheme the
 * request reached us by (a proxy that ends TLS forwards plain http). `__Secure-` then makes browsers
 * refuse the cookie from any plain-http page; `__Host-` would need Path=/, and Path=/admin keeps the
 * cookie off every other request.
 */
export function adminCookies(publicUrl: string | undefined): { session: string; device: string; secure: boolean } {
  const secure = publicUrl !== undefined && new URL(publicUrl).protocol === 'https:';
  const prefix = secure ? '__Secure-' : '';
  return { session: `${prefix}statuswatch_admin`, device: `${prefix}statuswatch_admin_device`, secure };
}

/** How long a browser stays known after signing in: 400 days, the most browsers keep a cookie. */
export const ADMIN_DEVICE_MS = 400 * 24 * 60 * 60 * 1000;

export type AdminSession = { id: string; expiresAt: number };

export type AdminSessions = {
  /** A new session and the cookie value that carries it. */
  issue(now: number): Promise<{ session: AdminSession; cookie: string }>;
  /** The live session a cookie stands for; null when forged, malformed, expired, ended, or made with another token. */
  read(cookie: string | undefined, now: number): Promise<AdminSession | null>;
  /** Ends the session a cookie stands for, whatever state it is in. */
  end(cookie: string | undefined): Promise<void>;
  /** The token every admin form carries: the same for the whole session, useless for any other. */
  csrfToken(session: AdminSession): Promise<string>;
  checkCsrf(session: AdminSession, token: unknown): Promise<boolean>;
  /**
   * A cookie that marks a browser as one that signed in with the current token. It opens nothing;
   * its wrong guesses are throttled under its own key, so strangers sharing its address (or
   * flooding the global ceiling) cannot keep it waiting.
   */
  issueDevice(): Promise<string>;
  /** The browser's id, or null when the cookie is absent, forged, or was made under another token. */
  readDevice(cookie: string | undefined): Promise<string | null>;
};

/**
 * `secret` signs cookies and CSRF tokens (the cursor codec's HMAC envelope, under a key of its
 * own; `k` keeps a session from passing for a CSRF token and back) and salts the fingerprint of
 * `adminToken`, which the store keeps with each session instead of the token.
 */
export async function createAdminSessions(secret: string, adminToken: string, store: AdminAccessStore): Promise<AdminSessions> {
  const codec = await createCursorCodec(secret);
  const fingerprint = await tokenFingerprint(adminToken, secret);
  // Keyed by the token's fingerprint too: a new ADMIN_TOKEN unmakes every device cookie at once.
  const devices = await createCursorCodec(`${secret}:device:${fingerprint}`);
  const idOf = async (cookie: string | undefined): Promise<string | null> => {
    if (!cookie) return null;
    const payload = (await codec.decode(cookie)) as { k?: unknown; s?: unknown } | null;
    return payload?.k === 'admin-session' && typeof payload.s === 'string' ? payload.s : null;
  };
  return {
    async issue(now) {
      const session = { id: randomSecret(32), expiresAt: now + ADMIN_SESSION_MS };
      await store.createAdminSession(
        { idHash: await sha256(session.id), tokenFingerprint: fingerprint, createdAt: now, expiresAt: session.expiresAt },
        MAX_LIVE_ADMIN_SESSIONS,
      );
      return { session, cookie: await codec.encode({ k: 'admin-session', s: session.id }) };
    },
    async read(cookie, now) {
      const id = await idOf(cookie);
      if (id === null) return null;
      const stored = await store.touchAdminSession(await sha256(id), fingerprint, now);
      return stored ? { id, expiresAt: stored.expiresAt } : null;
    },
    async end(cookie) {
      const id = await idOf(cookie);
      if (id !== null) await store.deleteAdminSession(await sha256(id));
    },
    csrfToken: (session) => codec.encode({ k: 'admin-csrf', s: session.id }),
    async checkCsrf(session, token) {
      if (typeof token !== 'string' || token === '') return false;
      const payload = (await codec.decode(token)) as { k?: unknown; s?: unknown } | null;
      return payload?.k === 'admin-csrf' && payload.s === session.id;
    },
    issueDevice: () => devices.encode({ k: 'admin-device', d: randomSecret(16) }),
    async readDevice(cookie) {
      if (!cookie) return null;
      const payload = (await devices.decode(cookie)) as { k?: unknown; d?: unknown } | null;
      return payload?.k === 'admin-device' && typeof payload.d === 'string' ? payload.d : null;
    },
  };
}

/**
 * Identifies the token a session was made with. PBKDF2 (once per process) rather than a bare
 * HMAC: the salt lives in the same database, so a copy of it should not make testing candidate
 * tokens against the fingerprints cheap.
 */
async function tokenFingerprint(token: string, salt: string): Promise<string> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(token), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: new TextEncoder().encode(`admin-token:${salt}`), iterations: 100_000 },
    material,
    256,
  );
  return toBase64Url(new Uint8Array(bits));
}

/** The session id is 32 random bytes: a plain hash is enough to make a stolen table useless. */
async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}
