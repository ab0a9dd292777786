/**
 * "Deliver what is due now" as one round a runtime can run whenever it likes: it sends what the
 * outbox holds and says when the next round should run. It keeps no timer: Node runs it from
 * adapters/node-delivery-scheduler.ts, Workers will run it from a Queue consumer or a cron tick.
 */
import type { Clock, Logger, OutboxStore } from '../core/ports.ts';
import type { Deliverer, DeliveryRound } from './deliverer.ts';
import { createFailureReporter } from './failure-reporter.ts';

export type DueDeliveryResult =
  /**
   * The round ran. `nextDueAt` is when the earliest pending delivery is due (it may be in the
   * past: one became due during the round), null when nothing is pending or it could not be read.
   */
  | { kind: 'sent'; sent: DeliveryRound; nextDueAt: number | null }
  /** The store failed (full, locked); the episode was logged. `nextDueAt` is when to try again: the backoff. */
  | { kind: 'store_failed'; nextDueAt: number };

export type DueDeliveries = {
  /** One round: claims and sends everything due now, then says when the next round is due. Never throws. */
  deliverDue(): Promise<DueDeliveryResult>;
};

export function createDueDeliveries(options: { deliverer: Deliverer; store: Pick<OutboxStore, 'nextDueAt'>; clock: Clock; logger: Logger }): DueDeliveries {
  const { deliverer, store, clock, logger } = options;
  // A round that throws failed in the store (sending failures are recorded, not thrown): while the
  // disk was full, a retry every 50 ms logged a stack ~9 times a second and kept the disk busy.
  const failures = createFailureReporter({ activity: 'delivery', logger, clock, backsOff: true });
  return {
    async deliverDue() {
      let sent: DeliveryRound;
      try {
        sent = await deliverer.deliverDue();
      } catch (error) {
        const retryInMs = failures.failed(error);
        return { kind: 'store_failed', nextDueAt: clock.now() + retryInMs };
      }
      failures.succeeded();
      let nextDueAt: number | null = null;
      try {
        nextDueAt = await store.nextDueAt();
      } catch {
        // Unknown: the runtime's next idle check tries again.
      }
      return { kind: 'sent', sent, nextDueAt };
    },
  };
}
