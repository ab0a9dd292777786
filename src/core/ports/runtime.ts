/** What every runtime gives the core: a clock, a logger, and a wake-up for the outbox. */

export interface Clock {
  now(): number;
}

/**
 * Told that the outbox gained work that may be due now: a poll wrote deliveries, an admin replayed
 * some, a paused subscription was resumed. The runtime decides when the next round of
 * `deliverDue` (app/due-deliveries.ts) runs: on Node a timer is moved forward
 * (adapters/node-delivery-scheduler.ts); on Workers this will send one Queue message whose consumer
 * calls the same `deliverDue`. A hint only, never awaited: the outbox rows are already committed,
 * and a runtime that misses it still finds them at its next check.
 */
export interface OutboxSignal {
  outboxChanged(): void;
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
