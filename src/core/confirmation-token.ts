/**
 * Single-purpose email link tokens (confirm a sign-up, unsubscribe, manage filters): 32 random
 * bytes for the link, and only a purpose-bound SHA-256 of them for the store. Web Crypto only.
 */
import { constantTimeEqual, toBase64Url, toHex } from './bytes.ts';

export type TokenPurpose = 'confirm' | 'unsubscribe' | 'manage';

export const TOKEN_PURPOSES: readonly TokenPurpose[] = ['confirm', 'unsubscribe', 'manage'];

const DAY_MS = 24 * 60 * 60 * 1000;

/** A double opt-in link is acted on within minutes; a week covers holidays and spam folders. */
export const CONFIRM_TOKEN_TTL_MS = 7 * DAY_MS;
/**
 * Unsubscribe and manage links sit in every email and are clicked whenever the reader gets fed up,
 * often months later (RFC 8058 one-click must still work then; CAN-SPAM asks for at least 30 days).
 * They stay usable for a year rather than forever because the link cannot be re-sent from a hash:
 * each email carries fresh tokens, so a finite expiry is what lets the store prune them. Deleting
 * the subscription revokes them sooner.
 */
export const UNSUBSCRIBE_TOKEN_TTL_MS = 365 * DAY_MS;
export const MANAGE_TOKEN_TTL_MS = 365 * DAY_MS;

export const TOKEN_TTL_MS: Readonly<Record<TokenPurpose, number>> = {
  confirm: CONFIRM_TOKEN_TTL_MS,
  unsubscribe: UNSUBSCRIBE_TOKEN_TTL_MS,
  manage: MANAGE_TOKEN_TTL_MS,
};

const TOKEN_BYTES = 32;
// 32 bytes are 43 unpadded base64url characters; checking the shape first means a junk or huge
// path segment is refused without being hashed.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const HASH_PATTERN = /^[0-9a-f]{64}$/;
// Part of the stored format: changing it orphans every outstanding link.
const HASH_LABEL = 'statuswatch/link-token/v1/';

const encoder = new TextEncoder();

/** What the store keeps; the caller adds the subscription it belongs to and `usedAt`. */
export type TokenRecord = {
  /** Hex SHA-256 of the purpose and the token: the lookup key. */
  hash: string;
  purpose: TokenPurpose;
  expiresAt: number;
};

export type IssuedToken = {
  /** base64url of 32 random bytes, for the link only; never stored. */
  token: string;
  record: TokenRecord;
};

export type StoredToken = TokenRecord & {
  /**
   * Set by the caller when a confirm token is redeemed. Unsubscribe and manage tokens are left
   * unset: a second click or a mail scanner's prefetch must see the same page, not an error.
   */
  usedAt?: number | null;
};

export type TokenCheck = { ok: true } | { ok: false; reason: 'unknown' | 'expired' | 'used' | 'wrong_purpose' };

export async function issueToken(purpose: TokenPurpose, now: number): Promise<IssuedToken> {
  checkPurpose(purpose);
  const token = toBase64Url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
  return { token, record: { hash: await hashToken(purpose, token), purpose, expiresAt: now + TOKEN_TTL_MS[purpose] } };
}

/**
 * The store's lookup key. Plain SHA-256 suffices (no salt, no slow hash) because the input already
 * has 256 bits of entropy; binding the purpose in means a confirm token never matches an
 * unsubscribe row, even if a route looks up the wrong kind.
 */
export async function hashToken(purpose: TokenPurpose, token: string): Promise<string> {
  checkPurpose(purpose);
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(`${HASH_LABEL}${purpose}\0${token}`));
  return toHex(new Uint8Array(digest));
}

/** True when `token` could be one we issued; routes can refuse others before touching the store. */
export function isWellFormedToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN_PATTERN.test(token);
}

/**
 * Whether `presented` redeems `record` (the row found by `hashToken`, or null) at `now`. A token
 * that does not hash to the record is 'unknown' whatever the record says, so only a holder of the
 * token learns that it expired or was used. Used is reported before expired: "already confirmed"
 * is the truer answer to a second click a month later.
 */
export async function checkToken(record: StoredToken | null, presented: { purpose: TokenPurpose; token: string }, now: number): Promise<TokenCheck> {
  if (!record || !isWellFormedToken(presented.token) || !isPurpose(record.purpose) || !isPurpose(presented.purpose)) {
    return { ok: false, reason: 'unknown' };
  }
  // Hashed under the record's purpose so a token shown to the wrong route is named as such.
  const hash = await hashToken(record.purpose, presented.token);
  if (!HASH_PATTERN.test(record.hash) || !constantTimeEqual(hash, record.hash)) return { ok: false, reason: 'unknown' };
  if (record.purpose !== presented.purpose) return { ok: false, reason: 'wrong_purpose' };
  if (record.usedAt != null) return { ok: false, reason: 'used' };
  if (!(now < record.expiresAt)) return { ok: false, reason: 'expired' };
  return { ok: true };
}

function isPurpose(value: unknown): value is TokenPurpose {
  return typeof value === 'string' && (TOKEN_PURPOSES as readonly string[]).includes(value);
}

function checkPurpose(purpose: TokenPurpose): void {
  if (!isPurpose(purpose)) throw new Error(`token purpose: expected one of ${TOKEN_PURPOSES.join(', ')}, got ${JSON.stringify(purpose)}`);
}
