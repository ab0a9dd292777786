/**
 * The OutboxSignal on Workers: one Queue message that wakes the delivery consumer. The message is
 * only a wake-up (the outbox rows in D1 are the truth), so signals that come while one send is in
 * flight share it, and a failed send is logged, not retried: the next cron tick finds the rows.
 */
import type { Logger, OutboxSignal } from '../core/ports.ts';

/** The body of every message on the deliveries queue: it carries no work, only "look at the outbox". */
export type OutboxWakeUp = { kind: 'outbox_changed' };
export const OUTBOX_WAKE_UP: OutboxWakeUp = { kind: 'outbox_changed' };

/** The part of a Workers Queue producer binding used here. */
export type WakeUpQueue = { send(body: OutboxWakeUp, options?: { delaySeconds?: number }): Promise<unknown> };

export type QueueOutboxSignal = OutboxSignal & {
  /** Resolves when the send in flight, if any, has ended (a handler awaits it before it returns). */
  settled(): Promise<void>;
};

/**
 * `keepAlive` hands the send to the runtime so it outlives the response (Workers' waitUntil):
 * the signal is never awaited by whoever gives it.
 */
export function createQueueOutboxSignal(options: { queue: WakeUpQueue; logger: Logger; keepAlive: (promise: Promise<unknown>) => void }): QueueOutboxSignal {
  let inFlight: Promise<void> | null = null;
  return {
    outboxChanged() {
      if (inFlight) return;
      const sending = options.queue.send(OUTBOX_WAKE_UP).then(
        () => undefined,
        (error: unknown) =>
          options.logger.warn('could not wake the delivery queue; the next cron tick will', { error: error instanceof Error ? error.message : String(error) }),
      );
      inFlight = sending.finally(() => {
        inFlight = null;
      });
      options.keepAlive(inFlight);
    },
    settled: () => inFlight ?? Promise.resolve(),
  };
}
