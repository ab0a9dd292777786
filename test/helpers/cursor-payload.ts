/** What a cursor says, read as any client could read it: base64url JSON before the signature. */
import { fromBase64Url } from '../../src/core/bytes.ts';

export function cursorPayload(cursor: string): unknown {
  const body = fromBase64Url(cursor.split('.')[0] ?? '');
  if (!body) throw new Error(`not a cursor: ${cursor}`);
  return JSON.parse(new TextDecoder().decode(body));
}
