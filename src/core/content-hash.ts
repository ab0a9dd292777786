/**
 * A content address for text (hex SHA-256 of its UTF-8) or bytes, on Web Crypto unless given the
 * runtime's own hashes.
 */
import { toHex } from './bytes.ts';
import type { Hashes } from './ports.ts';

const encoder = new TextEncoder();

export async function sha256Hex(content: string | Uint8Array<ArrayBuffer>, hashes?: Hashes): Promise<string> {
  const bytes = typeof content === 'string' ? encoder.encode(content) : content;
  return toHex(hashes ? await hashes.sha256(bytes) : new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}
