/** Bounded concurrency for work that waits on outside parties (a directory, a mail server). */

/** Runs work at most `limit` at a time, in the order it came; the rest waits its turn. */
export function createSlots(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (active < limit) active++;
      // A slot freed is handed straight to the longest waiting: `active` stays as it is.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
  };
}

/** `work` on each item, at most `limit` at once, each item taken in order as a worker comes free. */
export async function forEachAtMost<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
