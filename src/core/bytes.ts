/** Bytes as text and back (hex, base64, base64url) and constant-time comparison, on Web APIs only. */

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Even-length hex, or null. */
export function fromHex(hex: string): Uint8Array<ArrayBuffer> | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Every 12 bits as their two base64 characters: a triple of bytes is two look-ups. */
const BASE64_PAIRS = Array.from({ length: 4096 }, (_, i) => BASE64_ALPHABET[i >>> 6]! + BASE64_ALPHABET[i & 63]!);

/**
 * Padded base64, the alphabet with + and /. By table: btoa needs the bytes as a binary string
 * first, and for a 32-byte signature that detour cost several times the table's look-ups.
 */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const triple = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64_PAIRS[triple >>> 12]! + BASE64_PAIRS[triple & 4095]!;
  }
  if (bytes.length - whole === 1) {
    out += `${BASE64_PAIRS[bytes[whole]! << 4]}==`;
  } else if (bytes.length - whole === 2) {
    const pair = (bytes[whole]! << 8) | bytes[whole + 1]!;
    out += `${BASE64_PAIRS[pair >>> 4]}${BASE64_ALPHABET[(pair & 15) << 2]}=`;
  }
  return out;
}

/** Unpadded base64url, the alphabet with - and _. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Padded base64, or null. Canonical only, like fromBase64Url: text that decodes but is not what
 * toBase64 writes (flipped unused low bits in the last character) is refused, not accepted.
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const bytes = decodeBinary(text);
  return bytes && toBase64(bytes) === text ? bytes : null;
}

/** Unpadded base64url, or null. Canonical only: exactly what toBase64Url writes. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes = decodeBinary(text.replace(/-/g, '+').replace(/_/g, '/'));
  return bytes && toBase64Url(bytes) === text ? bytes : null;
}

function decodeBinary(base64: string): Uint8Array<ArrayBuffer> | null {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    return null;
  }
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * Whether two byte arrays (or two strings) are equal, in time that depends on their length only:
 * for MACs and token hashes, where an early exit would tell an attacker how much was right.
 */
export function constantTimeEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  if (a.length !== b.length) return false;
  const at = (x: Uint8Array | string, i: number) => (typeof x === 'string' ? x.charCodeAt(i) : x[i]!);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= at(a, i) ^ at(b, i);
  return diff === 0;
}

/**
 * Whether two byte strings are equal, compared four bytes at a time where both start aligned: a
 * cached answer of a megabyte is compared with its rebuild in a fraction of a millisecond, on Web
 * APIs only (Node's Buffer.equals is not everywhere this runs). Not constant-time: for public bytes.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = a.byteLength >>> 2;
    const wordsA = new Uint32Array(a.buffer, a.byteOffset, words);
    const wordsB = new Uint32Array(b.buffer, b.byteOffset, words);
    for (; i < words; i++) if (wordsA[i] !== wordsB[i]) return false;
    i = words << 2;
  }
  for (; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
