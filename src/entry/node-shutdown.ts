/**
 * How `serve` stops on SIGTERM, whatever a directory, a webhook receiver or a mail server is doing:
 * no new work is taken; the work in flight gets SHUTDOWN_SETTLE_MS to finish; then the sends still
 * open are cut and the rest gets SHUTDOWN_ABORT_MS to record how it ended; then the process exits
 * anyway, naming what it abandoned. An abandoned delivery stays claimed in the outbox: the next
 * start sees its holder gone and sends it again (receivers drop a repeated webhook by its id).
 */

/** Time for work in flight to finish by itself: most rounds, polls and requests take less. */
export const SHUTDOWN_SETTLE_MS = 5_000;
/** Time, once the open sends are cut, for their rounds to record the failed attempts. */
export const SHUTDOWN_ABORT_MS = 2_000;
/**
 * The signal handler exits at this point whatever stopping is doing: a supervisor's SIGKILL
 * commonly follows SIGTERM after 10 s.
 */
export const SHUTDOWN_LIMIT_MS = SHUTDOWN_SETTLE_MS + SHUTDOWN_ABORT_MS + 1_500;

/** One kind of work a stopping process may wait for. */
export type Work = { name: string; done: Promise<unknown> };

/** The names of the work still unfinished after `ms` (a failure counts as finished). */
export async function unfinishedAfter(work: readonly Work[], ms: number): Promise<string[]> {
  const finished = new Set<Work>();
  const all = Promise.all(
    work.map((w) => {
      const mark = () => finished.add(w);
      return w.done.then(mark, mark);
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  return work.filter((w) => !finished.has(w)).map((w) => w.name);
}

/** The promises of the calls in flight, for a stopping process to wait on. */
export type InFlightCalls = {
  track<T>(call: Promise<T>): Promise<T>;
  /** Settles when every call in flight now has. */
  settled(): Promise<unknown>;
  count(): number;
};

export function createInFlightCalls(): InFlightCalls {
  const calls = new Set<Promise<unknown>>();
  return {
    track(call) {
      const tracked = call.finally(() => calls.delete(tracked));
      calls.add(tracked);
      // The caller handles the rejection of `call`; this copy only counts.
      tracked.catch(() => {});
      return call;
    },
    settled: () => Promise.allSettled([...calls]),
    count: () => calls.size,
  };
}
