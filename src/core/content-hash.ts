/** A content address for text (hex SHA-256 of its UTF-8), on Web Crypto only. */
import { toHex } from './bytes.ts';

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));
}
