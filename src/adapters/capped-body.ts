/**
 * Reads at most a given number of bytes of a fetch Response body and cancels the rest, so a
 * receiver that answers without end costs a bounded read. Web streams only: runs on Workers.
 */

/** What was read: `bytes` in all, and whether the read stopped at the cap (the rest, if any, cancelled). */
export type CappedRead = { bytes: number; cut: boolean };

/**
 * Hands each chunk to `onChunk` as it comes (so a body that stalls still leaves what it said),
 * stops once `maxBytes` have come and cancels the stream. Rejects when the stream errors, as it
 * does when the request's signal aborts.
 */
export async function readCappedBody(body: ReadableStream<Uint8Array> | null, maxBytes: number, onChunk: (chunk: Uint8Array) => void): Promise<CappedRead> {
  if (body === null) return { bytes: 0, cut: false };
  const reader = body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes, cut: false };
    const room = maxBytes - bytes;
    onChunk(value.byteLength > room ? value.subarray(0, room) : value);
    bytes += Math.min(value.byteLength, room);
    if (bytes >= maxBytes) {
      // Not awaited: cancelling ends the connection, and its settling is not worth waiting for.
      reader.cancel().catch(() => {});
      return { bytes, cut: true };
    }
  }
}

/** The first buffer of a body that declares no length: most feed and page bodies fit. */
const UNDECLARED_FIRST_BYTES = 64 * 1024;

/**
 * The whole body as bytes, or null once more than `maxBytes` came (the rest cancelled).
 * `expectedBytes` (a declared Content-Length, at most `maxBytes`) only sizes the first buffer: the
 * bound is the bytes counted, whatever the framing said. Read into one growing buffer by a BYOB
 * reader where the stream is a byte stream (fetch bodies on Node and Workers): in workerd each
 * default read is a trip through the stream machinery for about 4 KB, and a 150 KB feed read
 * that way cost more CPU than fetching and parsing it.
 */
export async function readBodyWithin(body: ReadableStream<Uint8Array>, maxBytes: number, expectedBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: 'byob' });
  } catch {
    return readChunksWithin(body, maxBytes); // not a byte stream: a body made in JavaScript
  }
  // One byte over the cap fits, so a body of exactly maxBytes ends without growing the buffer.
  const limit = maxBytes + 1;
  let buffer = new ArrayBuffer(Math.min(limit, expectedBytes > 0 ? expectedBytes + 1 : UNDECLARED_FIRST_BYTES));
  let total = 0;
  for (;;) {
    if (total === buffer.byteLength) {
      if (total >= limit) {
        await reader.cancel();
        return null;
      }
      const grown = new Uint8Array(Math.min(limit, buffer.byteLength * 2));
      grown.set(new Uint8Array(buffer));
      buffer = grown.buffer;
    }
    // The view's buffer is handed to the stream and comes back in `value`, done or not.
    const { done, value } = await reader.read(new Uint8Array(buffer, total));
    if (!value) throw new Error('the body stream ended without handing its buffer back');
    buffer = value.buffer as ArrayBuffer;
    total += value.byteLength;
    if (done) break;
  }
  if (total > maxBytes) return null;
  return new Uint8Array(buffer, 0, total);
}

/** readBodyWithin for a stream that is not a byte stream: its chunks through readCappedBody, then joined. */
async function readChunksWithin(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const chunks: Uint8Array[] = [];
  // One byte over the cap is enough to know the body is too long.
  const read = await readCappedBody(body, maxBytes + 1, (chunk) => chunks.push(chunk));
  if (read.bytes > maxBytes) return null;
  const bytes = new Uint8Array(read.bytes);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

// Decodes every prefix, one whole prefix at a time and flushed after it, so no state is left
// between calls: constructing a TextDecoder for each answer cost as much as the rest of reading it.
const prefixDecoder = new TextDecoder('utf-8');

/**
 * The first `maxBytes` of a byte stream as text, decoded when read (so a body that stalls still
 * leaves what it said). A character cut by the end is dropped rather than turned into U+FFFD.
 */
export function createTextPrefix(maxBytes: number): { add(chunk: Uint8Array): void; readonly text: string } {
  const chunks: Uint8Array[] = [];
  let taken = 0;
  let text: string | null = '';
  return {
    add(chunk) {
      if (taken >= maxBytes || chunk.byteLength === 0) return;
      // A copy: the chunk's memory is the caller's to reuse once this returns.
      const part = chunk.slice(0, maxBytes - taken);
      chunks.push(part);
      taken += part.byteLength;
      text = null;
    },
    get text() {
      if (text === null) {
        const bytes = new Uint8Array(taken);
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.byteLength;
        }
        // Streamed, an incomplete last character is held back; the flush that follows drops it.
        text = prefixDecoder.decode(bytes, { stream: true });
        prefixDecoder.decode();
      }
      return text;
    },
  };
}
