/** The Hashes port on Web Crypto, which every runtime has: the default wherever a runtime gives no faster one. */
import type { Hashes } from './ports.ts';

// HMAC keys by their bytes: importing a key cost as much as signing with it, on every delivery.
// Bounded, and cleared whole when full: rotations only ever add a few.
const importedKeys = new Map<string, Promise<CryptoKey>>();
const IMPORTED_KEYS_MAX = 10_000;

function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  const cacheKey = String.fromCharCode(...raw);
  let key = importedKeys.get(cacheKey);
  if (!key) {
    if (importedKeys.size >= IMPORTED_KEYS_MAX) importedKeys.clear();
    key = crypto.subtle.importKey('raw', new Uint8Array(raw), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    // A key that fails to import must not stay cached as a rejection.
    key.catch(() => importedKeys.delete(cacheKey));
    importedKeys.set(cacheKey, key);
  }
  return key;
}

const encoder = new TextEncoder();

/** The bytes Web Crypto takes: a string's UTF-8, or a copy of the bytes in a buffer of their own. */
const bytesOf = (data: Uint8Array | string): BufferSource => (typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data));

export const webCryptoHashes: Hashes = {
  async sha256(data) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', bytesOf(data)));
  },
  async hmacSha256(key, data) {
    return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(key), bytesOf(data)));
  },
};
