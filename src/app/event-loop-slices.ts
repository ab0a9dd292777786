/**
 * Work over long lists a slice at a time, yielding to the event loop between slices, so that a
 * poll of a huge feed does not keep the server from answering (`/widget.json` waits behind it).
 */

/**
 * A macrotask, so pending I/O gets in (a microtask would not): setImmediate where the runtime has
 * one (Node), which comes back within microseconds, where setTimeout(0) waits at least a
 * millisecond (a poll of one changed incident spent ~3 ms in such waits); setTimeout elsewhere.
 */
const setImmediateIfAny = (globalThis as { setImmediate?: (resume: () => void) => unknown }).setImmediate;
const nextMacrotask: (resume: () => void) => void =
  typeof setImmediateIfAny === 'function' ? (resume) => setImmediateIfAny(resume) : (resume) => setTimeout(resume, 0);

export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => nextMacrotask(resolve));

/** Calls `work` on consecutive slices of at most `size` items (with the first one's index), yielding in between. */
export async function forEachSlice<T>(items: readonly T[], size: number, work: (slice: T[], start: number) => unknown): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await yieldToEventLoop();
    await work(items.slice(start, start + size), start);
  }
}

/**
 * As forEachSlice, for work whose cost varies by item: `work` answers what a slice cost, in units
 * of one costly item, and a yield comes once `budget` of them were spent since the last, not after
 * every slice. A list of items mostly cheap to handle (a feed's entries known from the last poll)
 * goes through in one turn; as many costly ones as `budget` still get a yield after them.
 */
export async function forEachSliceWithin<T>(
  items: readonly T[],
  size: number,
  budget: number,
  work: (slice: T[], start: number) => number | Promise<number>,
): Promise<void> {
  let spent = 0;
  for (let start = 0; start < items.length; start += size) {
    if (spent >= budget) {
      await yieldToEventLoop();
      spent = 0;
    }
    spent += await work(items.slice(start, start + size), start);
  }
}
