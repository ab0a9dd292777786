/**
 * Checks that a slash command came from the vendor: HMAC-SHA256 with the app's signing
 * secret over `v0:<timestamp>:<body>`, sent as `v0=<hex>`, with a timestamp within five minutes of
 * now (either way), compared in constant time. Web Crypto only; time is passed in.
 */
import { constantTimeEqual, toHex } from '../bytes.ts';

/** Requests older (or newer) than this are refused: a captured request cannot be sent later. */
export const SLASH_MAX_SKEW_SECONDS = 5 * 60;
export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';

export type SlashRequestCheck =
  | { ok: true; signature: string; timestampSeconds: number }
  | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature' };

export async function signSlashRequest(secret: string, timestamp: string | number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`v0:${timestamp}:${body}`));
  return `v0=${toHex(new Uint8Array(mac))}`;
}

export async function checkSlashRequest(input: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string;
  nowMs: number;
}): Promise<SlashRequestCheck> {
  if (!input.timestamp || !input.signature) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const timestampSeconds = Number(input.timestamp);
  if (Math.abs(input.nowMs / 1000 - timestampSeconds) > SLASH_MAX_SKEW_SECONDS) return { ok: false, reason: 'stale' };
  // Over the timestamp exactly as sent: the header's text is what the vendor signed.
  const expected = await signSlashRequest(input.secret, input.timestamp, input.body);
  if (!constantTimeEqual(input.signature.trim().toLowerCase(), expected)) return { ok: false, reason: 'bad_signature' };
  return { ok: true, signature: expected, timestampSeconds };
}
