/** A content address for text (hex SHA-256 of its UTF-8), on Web Crypto unless given the runtime's own hashes. */
import { toHex } from './bytes.ts';
import type { Hashes } from './ports.ts';

const encoder = new TextEncoder();

export async function sha256Hex(text: string, hashes?: Hashes): Promise<string> {
  const bytes = encoder.encode(text);
  return toHex(hashes ? await hashes.sha256(bytes) : new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}
