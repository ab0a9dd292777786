/**
 * Work over long lists a slice at a time, yielding to the event loop between slices, so that a
 * poll of a huge feed does not keep the server from answering (`/widget.json` waits behind it).
 */

/** setTimeout exists on Node and Workers alike; a microtask would not let pending I/O in. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Calls `work` on consecutive slices of at most `size` items (with the first one's index), yielding in between. */
export async function forEachSlice<T>(items: readonly T[], size: number, work: (slice: T[], start: number) => unknown): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await yieldToEventLoop();
    await work(items.slice(start, start + size), start);
  }
}
