/**
 * Runs the deliverer: at once when woken (a poll wrote deliveries, an admin replayed one), and
 * otherwise when the next retry is due, checking at least every IDLE_CHECK_MS for work written by
 * other processes. One round at a time.
 */
import type { Clock, Logger, NotificationStore } from '../core/ports.ts';
import type { Deliverer } from './deliverer.ts';
import { createFailureReporter } from './failure-reporter.ts';

const IDLE_CHECK_MS = 5_000;
const MIN_SLEEP_MS = 50;

export type DeliveryLoop = {
  wake(): void;
  /** Resolves when the loop is idle: for tests and a clean shutdown. */
  stop(): Promise<void>;
  /** Resolves after the next full round: for tests. */
  settled(): Promise<void>;
};

export function startDeliveryLoop(options: { deliverer: Deliverer; store: NotificationStore; clock: Clock; logger: Logger }): DeliveryLoop {
  const { deliverer, store, clock, logger } = options;
  // A round that throws failed in the store (sending failures are recorded, not thrown): while the
  // disk was full, a retry every 50 ms logged a stack ~9 times a second and kept the disk busy.
  const failures = createFailureReporter({ activity: 'delivery', logger, clock, backsOff: true });
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let waiters: (() => void)[] = [];

  const schedule = (delayMs: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, Math.max(MIN_SLEEP_MS, delayMs));
    timer.unref?.();
  };

  /** One round; when it fails, how long to wait before the next (the backoff), else null. */
  async function round(): Promise<number | null> {
    try {
      await deliverer.deliverDue();
    } catch (error) {
      return failures.failed(error);
    }
    failures.succeeded();
    return null;
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().then(async (retryInMs) => {
      running = null;
      if (again) {
        again = false;
        return run();
      }
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
      if (retryInMs !== null) return schedule(retryInMs);
      let nextDue: number | null = null;
      try {
        nextDue = await store.nextDueAt();
      } catch {
        // The next idle check tries again.
      }
      schedule(nextDue === null ? IDLE_CHECK_MS : Math.min(IDLE_CHECK_MS, nextDue - clock.now()));
    });
  }

  schedule(0);
  return {
    wake: () => {
      if (timer) clearTimeout(timer);
      timer = null;
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      for (const resolve of waiters) resolve();
    },
    settled() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        run();
      });
    },
  };
}
