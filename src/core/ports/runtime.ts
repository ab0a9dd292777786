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

/**
 * SHA-256 and HMAC-SHA256, done the way the runtime does them fastest: what a webhook's id and
 * signature are made of. Web Crypto by default (core/web-crypto-hashes.ts); Node gives its own
 * synchronous hashes (adapters/node-hashes.ts), where each Web Crypto call is a trip through the
 * thread pool that costs more than the hash itself.
 */
export interface Hashes {
  /** SHA-256 of `data`; a string is hashed as its UTF-8 bytes, which a runtime may do without copying them out first. */
  sha256(data: Uint8Array | string): Promise<Uint8Array> | Uint8Array;
  /** HMAC-SHA256 of `data` (a string: its UTF-8 bytes) under the raw key `key`. */
  hmacSha256(key: Uint8Array, data: Uint8Array | string): Promise<Uint8Array> | Uint8Array;
}
