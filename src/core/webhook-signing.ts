/**
 * Signs outgoing webhooks the Standard Webhooks way (webhook-id, webhook-timestamp, and an
 * HMAC-SHA256 `v1,` signature over `id.timestamp.body`) so receivers can check them with any
 * Standard Webhooks library. Web Crypto only.
 */
import { fromBase64, toBase64 } from './bytes.ts';
import type { Hashes } from './ports.ts';
import { webCryptoHashes } from './web-crypto-hashes.ts';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
// The Standard Webhooks spec asks for keys of 24 to 64 bytes; anything outside is a typo or a
// secret that was never ours.
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const MAX_ID_CHARS = 256;
/** How far a timestamp may be from now before a receiver refuses it (the libraries' default). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const encoder = new TextEncoder();

export type SignWebhookInput = {
  /** Stable across retries of one delivery: the receiver's idempotency key. */
  id: string;
  timestampSeconds: number;
  /** The exact bytes sent, as text: the signature covers them, so re-serialising breaks it. */
  body: string;
  /** How the runtime computes HMAC-SHA256; Web Crypto when absent. */
  hashes?: Hashes;
} & (
  | {
      /** Every secret currently valid for the subscriber: during a rotation both the old and the new sign. */
      secrets: readonly string[];
    }
  | {
      /**
       * The HMAC keys of those secrets (decodeWebhookSecret), one per distinct secret: a sender
       * that signs many deliveries with one secret decodes it once, not once per delivery.
       */
      keys: readonly Uint8Array[];
    }
);

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
};

/** A fresh secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The `webhook-signature` value: one `v1,<base64>` per distinct secret, space-separated. */
export async function signWebhook(input: SignWebhookInput): Promise<string> {
  checkId(input.id);
  checkTimestamp(input.timestampSeconds);
  const keys = 'keys' in input ? input.keys : [...new Set(input.secrets)].map(decodeWebhookSecret);
  if (keys.length === 0) throw new Error('signWebhook: expected at least one secret, got none');
  // Handed over as text: the hash reads its UTF-8 without a copy of the body encoded first.
  const content = `${input.id}.${input.timestampSeconds}.${input.body}`;
  const signatures: string[] = [];
  const hashes = input.hashes ?? webCryptoHashes;
  for (const key of keys) signatures.push(`v1,${toBase64(await hashes.hmacSha256(key, content))}`);
  return signatures.join(' ');
}

/** Everything a signed delivery carries besides the body. */
export async function webhookHeaders(input: SignWebhookInput): Promise<WebhookHeaders> {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': await signWebhook(input),
    'content-type': 'application/json',
  };
}

export type VerifyWebhookInput = {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  secret: string;
  nowSeconds: number;
  toleranceSeconds?: number;
};

/**
 * What a receiver does, for our own tests and docs: true when the timestamp is within tolerance
 * and one of the `v1` signatures matches. Unknown versions are skipped, as the spec asks.
 */
export async function verifyWebhookSignature(input: VerifyWebhookInput): Promise<boolean> {
  if (!/^\d{1,15}$/.test(input.timestamp)) return false;
  const timestampSeconds = Number(input.timestamp);
  const tolerance = input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - timestampSeconds) > tolerance) return false;
  const key = await verifyKey(input.secret);
  const content = encoder.encode(`${input.id}.${input.timestamp}.${input.body}`);
  for (const part of input.signature.split(' ')) {
    const [version, value] = part.split(',');
    if (version !== 'v1' || value === undefined) continue;
    const mac = fromBase64(value);
    // crypto.subtle.verify compares in constant time.
    if (mac && (await crypto.subtle.verify('HMAC', key, mac, content))) return true;
  }
  return false;
}

/** The HMAC key inside a `whsec_` secret; throws an Error naming what is wrong (never the secret). */
export function decodeWebhookSecret(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`webhook secret: expected the prefix ${SECRET_PREFIX}`);
  const key = fromBase64(secret.slice(SECRET_PREFIX.length));
  if (!key) throw new Error(`webhook secret: expected padded base64 after ${SECRET_PREFIX}`);
  if (key.byteLength < MIN_KEY_BYTES || key.byteLength > MAX_KEY_BYTES) {
    throw new Error(`webhook secret: expected a key of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes, got ${key.byteLength}`);
  }
  return key;
}

// Verifying is for tests and docs (a receiver's side), so its key is imported each time.
function verifyKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', decodeWebhookSecret(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

function checkId(id: string): void {
  // Visible ASCII only: the id travels in a header and in the signed content, where a space or a
  // line break would be ambiguous.
  if (!isVisibleAscii(id, MAX_ID_CHARS)) throw new Error(`webhook id: expected 1 to 256 visible ASCII characters, got ${JSON.stringify(id)}`);
}

// A loop rather than a regular expression: the check runs once per delivery, and the loop costs
// a fraction of the match.
function isVisibleAscii(text: string, maxChars: number): boolean {
  if (text.length === 0 || text.length > maxChars) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

function checkTimestamp(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new Error(`webhook timestamp: expected whole seconds since the epoch, got ${seconds}`);
}
