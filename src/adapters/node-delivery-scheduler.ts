/**
 * Node's timing of delivery rounds (app/due-deliveries.ts): at once when the outbox changed, and
 * otherwise when the next delivery or the failure backoff is due, checking at least every
 * IDLE_CHECK_MS for work written by other processes. One round at a time.
 */
import type { DueDeliveries } from '../app/due-deliveries.ts';
import type { Clock, OutboxSignal } from '../core/ports.ts';

/** How often a process looks for deliveries other processes wrote (they cannot signal this one). */
export const IDLE_CHECK_MS = 5_000;
const MIN_SLEEP_MS = 50;

export type NodeDeliveryScheduler = OutboxSignal & {
  /** Resolves when no round runs any more: for tests and a clean shutdown. */
  stop(): Promise<void>;
  /** Runs a round now (or after the one running) and resolves after it: for tests. */
  settled(): Promise<void>;
};

export function startNodeDeliveryScheduler(options: { due: DueDeliveries; clock: Clock; idleCheckMs?: number }): NodeDeliveryScheduler {
  const { due, clock } = options;
  const idleCheckMs = options.idleCheckMs ?? IDLE_CHECK_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let waiters: (() => void)[] = [];

  const schedule = (delayMs: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, Math.max(MIN_SLEEP_MS, delayMs));
    // The timer alone never keeps the process alive: a command ends when its work does.
    timer.unref();
  };

  function run(): void {
    if (stopped) return;
    if (running) {
      // A signal during a round: its rows may have been written after this round's last claim.
      again = true;
      return;
    }
    running = due.deliverDue().then((result) => {
      running = null;
      if (again) {
        again = false;
        return run();
      }
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
      const untilDueMs = result.nextDueAt === null ? idleCheckMs : result.nextDueAt - clock.now();
      // The backoff after a store failure is kept whole; otherwise other processes' work is looked for too.
      schedule(result.kind === 'store_failed' ? untilDueMs : Math.min(idleCheckMs, untilDueMs));
    });
  }

  schedule(0);
  return {
    outboxChanged() {
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
