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
