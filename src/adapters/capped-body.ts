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

/**
 * The first `maxBytes` of a byte stream as text, decoded as it comes. Without a final flush, a
 * character cut by the end is dropped rather than turned into U+FFFD.
 */
export function createTextPrefix(maxBytes: number): { add(chunk: Uint8Array): void; readonly text: string } {
  const decoder = new TextDecoder('utf-8');
  let taken = 0;
  let text = '';
  return {
    add(chunk) {
      if (taken >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - taken);
      text += decoder.decode(part, { stream: true });
      taken += part.byteLength;
    },
    get text() {
      return text;
    },
  };
}
