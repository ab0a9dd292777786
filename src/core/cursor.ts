/**
 * Opaque pagination cursors: base64url JSON plus an HMAC, so a tampered or made-up cursor is
 * refused as invalid_cursor rather than silently paging from somewhere else. Web Crypto only.
 */
import { constantTimeEqual, fromBase64Url, toBase64Url } from './bytes.ts';

const MAC_BYTES = 16;
const encoder = new TextEncoder();

export type CursorCodec = {
  encode(payload: unknown): Promise<string>;
  /** The payload, or null for anything we did not issue. */
  decode(cursor: string): Promise<unknown>;
};

/** The name the cursor key is kept under in the archive (app/archive-keys.ts), shared by every process. */
export const CURSOR_KEY_NAME = 'cursor';

export async function createCursorCodec(secret: string): Promise<CursorCodec> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const mac = async (data: string) => new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(data))).slice(0, MAC_BYTES);

  return {
    async encode(payload) {
      const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
      return `${body}.${toBase64Url(await mac(body))}`;
    },
    async decode(cursor) {
      const match = /^([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
      if (!match) return null;
      const [, body = '', signature = ''] = match;
      const expected = await mac(body);
      const given = fromBase64Url(signature);
      if (!given || !constantTimeEqual(given, expected)) return null;
      const json = fromBase64Url(body);
      if (!json) return null;
      try {
        return JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(json));
      } catch {
        return null;
      }
    },
  };
}

/** A fresh random secret, as text. */
export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}
