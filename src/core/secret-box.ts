/**
 * Encrypts secrets at rest (webhook secrets, a stored SMTP password) with AES-256-GCM under a key
 * taken from SECRET_KEY, as versioned text that names the key it was sealed with. Web Crypto only.
 */
import { fromBase64Url, fromHex, toBase64Url, toHex } from './bytes.ts';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MIN_PASSPHRASE_CHARS = 32;
// A placeholder like 32 × "x" or "changeme" repeated passes a length check; real keys and real
// passphrases use far more than this many distinct characters.
const MIN_DISTINCT_CHARS = 8;
/**
 * Passphrases go through HKDF-SHA-256 with this fixed salt and info. Changing either changes every
 * derived key, so they are part of format v1. HKDF rather than PBKDF2: a 32-character floor makes
 * SECRET_KEY a key, not a password, and PBKDF2 on Workers is capped at 100,000 iterations (about
 * 17 bits of extra work) while costing tens of milliseconds of CPU on every cold isolate.
 */
export const PASSPHRASE_HKDF_SALT = 'statuswatch/secret-box/v1';
export const PASSPHRASE_HKDF_INFO = 'statuswatch secret-box v1 AES-256-GCM key';
// Domain-separates the key id from any other use of a hash of the key.
const KEY_ID_LABEL = 'statuswatch/secret-box/key-id\0';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export type SecretBox = {
  /** `v1.<key id>.<base64url IV>.<base64url ciphertext and tag>`, different on every call. */
  seal(plaintext: string): Promise<string>;
  /** The plaintext, or a SecretBoxError: never a guess. */
  open(sealed: string): Promise<string>;
  /** 8 hex characters naming this key; also the second field of everything it seals. */
  readonly keyId: string;
};

export type SecretBoxErrorKind = 'invalid_key' | 'malformed' | 'unknown_version' | 'other_key' | 'tampered';

/** Nothing here gets better by retrying: the key or the stored text has to change. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
  readonly retryable = false;
  constructor(
    readonly kind: SecretBoxErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A box keyed by SECRET_KEY, which may be 32 bytes as 64 hex characters, 32 bytes as 44
 * characters of padded base64 (`openssl rand -base64 32`; base64url accepted too), or any other
 * passphrase of at least 32 characters. The two raw forms are tried first, so a passphrase that
 * happens to look exactly like one is read as one.
 *
 * The key id embedded in sealed text is the first 4 bytes of SHA-256 over a label and the AES key.
 * It lets `open` tell "sealed under another SECRET_KEY" apart from "tampered", and will let a later
 * version hold old keys for rotation. It reveals nothing an attacker holding a sealed value could
 * not already test: the GCM tag checks a guessed key just as well.
 */
export async function createSecretBox(secretKey: string): Promise<SecretBox> {
  const rawKey = await keyBytes(secretKey);
  const key = await crypto.subtle.importKey('raw', rawKey, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  const keyId = await computeKeyId(rawKey);
  // The version and key id are authenticated with the ciphertext, so neither can be swapped.
  const additionalData = encoder.encode(`${VERSION}.${keyId}`);

  return {
    keyId,
    async seal(plaintext) {
      if (typeof plaintext !== 'string') throw new TypeError(`seal: expected a string, got ${typeof plaintext}`);
      // TextEncoder would silently turn a lone surrogate into U+FFFD; refuse instead of changing it.
      if (LONE_SURROGATE.test(plaintext)) throw new SecretBoxError('malformed', 'seal: expected well-formed Unicode text, got a lone surrogate');
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData }, key, encoder.encode(plaintext));
      return `${VERSION}.${keyId}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`;
    },
    async open(sealed) {
      if (typeof sealed !== 'string') throw new SecretBoxError('malformed', `secret box: expected sealed text, got ${typeof sealed}`);
      const version = /^(v\d{1,4})\./.exec(sealed)?.[1];
      if (version === undefined) throw new SecretBoxError('malformed', 'secret box: expected text starting with "v1.", got something else');
      if (version !== VERSION) throw new SecretBoxError('unknown_version', `secret box: expected format ${VERSION}, got ${version}`);
      const match = /^v1\.([0-9a-f]{8})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(sealed);
      if (!match) throw new SecretBoxError('malformed', 'secret box: expected v1.<key id>.<iv>.<ciphertext>');
      const [, sealedKeyId = '', ivText = '', ciphertextText = ''] = match;
      if (sealedKeyId !== keyId) {
        throw new SecretBoxError(
          'other_key',
          `secret box: sealed under another SECRET_KEY (key id ${sealedKeyId}; the current SECRET_KEY has key id ${keyId})`,
        );
      }
      const iv = fromBase64Url(ivText);
      const ciphertext = fromBase64Url(ciphertextText);
      if (!iv || iv.byteLength !== IV_BYTES) throw new SecretBoxError('malformed', `secret box: expected a ${IV_BYTES}-byte IV in canonical base64url`);
      if (!ciphertext || ciphertext.byteLength < TAG_BYTES) {
        throw new SecretBoxError('malformed', `secret box: expected at least ${TAG_BYTES} bytes of ciphertext and tag in canonical base64url`);
      }
      let plaintext: ArrayBuffer;
      try {
        plaintext = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData }, key, ciphertext);
      } catch (cause) {
        // A 32-bit key id can collide, so "another key" stays a possibility here.
        throw new SecretBoxError(
          'tampered',
          'secret box: authentication failed; the sealed text was altered (or sealed under another key with the same key id)',
          { cause },
        );
      }
      return decoder.decode(plaintext);
    },
  };
}

/** A fresh SECRET_KEY for operators: 32 random bytes as 64 hex characters. */
export function generateSecretKey(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const EXPECTED_KEY = `32 random bytes as 64 hex characters or 44 base64 characters (e.g. \`openssl rand -hex 32\`), or a passphrase of at least ${MIN_PASSPHRASE_CHARS} characters`;

/** The 32 AES key bytes SECRET_KEY stands for; the error names the problem, never the value. */
async function keyBytes(secretKey: string): Promise<Uint8Array<ArrayBuffer>> {
  if (typeof secretKey !== 'string' || secretKey.length === 0) {
    throw new SecretBoxError('invalid_key', `SECRET_KEY: expected ${EXPECTED_KEY}, got nothing`);
  }
  // A trailing newline from a file or a heredoc would silently become part of a passphrase and
  // give another key than the same value typed elsewhere; refuse rather than guess.
  if (secretKey.trim() !== secretKey) {
    throw new SecretBoxError('invalid_key', 'SECRET_KEY: has leading or trailing whitespace (a stray newline?); remove it');
  }
  const distinct = new Set(secretKey).size;
  if (/^[0-9a-fA-F]{64}$/.test(secretKey)) {
    checkDistinct(distinct);
    return fromHex(secretKey)!;
  }
  if (secretKey.length === 44 && /^[A-Za-z0-9+/_-]{43}=$/.test(secretKey)) {
    const bytes = fromBase64Url(secretKey.slice(0, 43).replace(/\+/g, '-').replace(/\//g, '_'));
    if (bytes && bytes.byteLength === KEY_BYTES) {
      checkDistinct(distinct);
      return bytes;
    }
  }
  const chars = [...secretKey].length;
  if (chars < MIN_PASSPHRASE_CHARS) {
    throw new SecretBoxError('invalid_key', `SECRET_KEY: expected ${EXPECTED_KEY}, got ${chars} characters`);
  }
  checkDistinct(distinct);
  const material = await crypto.subtle.importKey('raw', encoder.encode(secretKey), 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode(PASSPHRASE_HKDF_SALT), info: encoder.encode(PASSPHRASE_HKDF_INFO) },
    material,
    KEY_BYTES * 8,
  );
  return new Uint8Array(bits);
}

function checkDistinct(distinct: number): void {
  if (distinct < MIN_DISTINCT_CHARS) {
    throw new SecretBoxError(
      'invalid_key',
      `SECRET_KEY: expected random text, got only ${distinct} distinct characters (a placeholder?); generate one with \`openssl rand -hex 32\``,
    );
  }
}

async function computeKeyId(rawKey: Uint8Array<ArrayBuffer>): Promise<string> {
  const label = encoder.encode(KEY_ID_LABEL);
  const input = new Uint8Array(label.byteLength + rawKey.byteLength);
  input.set(label);
  input.set(rawKey, label.byteLength);
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', input)).slice(0, 4));
}
