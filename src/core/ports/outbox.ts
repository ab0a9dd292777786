/** The delivery outbox: rows written with the poll that caused them, claimed, attempted and recorded by deliverers. */
import type { Channel } from '../subscription.ts';
import type { StatusEvent } from '../events.ts';
import type { StoredSubscription } from './subscriptions.ts';

export type DeliveryState = 'pending' | 'done' | 'dead';

export type Delivery = {
  id: number;
  key: string;
  subscriptionId: string;
  channel: Channel;
  eventIds: string[];
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
  lastError: string | null;
};

export type DeliveryAttemptRecord = {
  attemptedAt: number;
  ok: boolean;
  status: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string | null;
};

/**
 * Of a claimed delivery, what sending it and recording the attempt use: the claim returns only
 * these columns (every column cost twice the id's per row). Its subscription and events come
 * alongside; its state is `pending` and its claim held by whoever claimed it.
 */
export type DeliveryToSend = Pick<Delivery, 'id' | 'key' | 'channel' | 'attempts' | 'createdAt'>;

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = { delivery: DeliveryToSend; subscription: StoredSubscription; events: StatusEvent[] };

/**
 * How an attempt ends a delivery's turn: confirmed, tried again later, or given up; or `held`:
 * it waits until `at` without the wait counting as an attempt (a rate-limited conversation, a
 * broken installation), logged in the attempts only when a call was made (`logged`).
 */
export type DeliveryOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; at: number; error: string }
  | { kind: 'dead'; reason: string }
  | { kind: 'held'; at: number; error: string; logged: boolean };

/** What an attempt does to its subscription's health. */
export type SubscriptionHealthChange = { kind: 'succeeded' } | { kind: 'failed' } | { kind: 'paused'; reason: string } | { kind: 'unchanged' };

export type AttemptToRecord = {
  deliveryId: number;
  attempt: DeliveryAttemptRecord;
  outcome: DeliveryOutcome;
  health: SubscriptionHealthChange;
};

export type DeliveryFilter = { subscriptionId?: string; state?: DeliveryState; sinceMs?: number };

/** `retrying`: pending deliveries that have failed at least once (the outbox depth an admin watches). */
export type DeliveryCounts = Record<DeliveryState, number> & { due: number; retrying: number; oldestPendingAt: number | null };

export interface OutboxStore {
  /** Claims up to `limit` due pending deliveries for `holder` until `now + leaseMs`, oldest due first. */
  claimDueDeliveries(holder: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records attempts and their outcomes in one step, each only while `holder` still holds its
   * claim (false for that one otherwise: another deliverer took it over, and its result wins).
   * They apply in the order given, as if recorded one after another.
   */
  recordAttempts(holder: string, attempts: readonly AttemptToRecord[]): Promise<boolean[]>;
  /**
   * Extends `holder`'s claims on `deliveryIds` to `now + leaseMs`, each only while it is still
   * live (its lease not over, so nobody else can have taken it); returns the ids it extended. A
   * deliverer sends a delivery only while its claim is certain to outlast the send.
   */
  renewClaims(holder: string, deliveryIds: readonly number[], now: number, leaseMs: number): Promise<number[]>;
  /** Holders with live claims: a deliverer checks whether they are still running. */
  claimHolders(): Promise<string[]>;
  /** Frees the claims of a holder known to be dead, so their deliveries go out now. */
  releaseClaims(holder: string): Promise<number>;
  /** When the next pending delivery of an active subscription is due (what a claim could take), if any. */
  nextDueAt(): Promise<number | null>;
  /** Newest first, before the delivery with id `beforeId`. */
  listDeliveries(filter: DeliveryFilter, beforeId: number | null, limit: number): Promise<Delivery[]>;
  /**
   * A delivery and its attempts, oldest first; with `attemptsLimit`, only the newest that many
   * (replays add attempts without end; `delivery.attempts` still counts them all).
   */
  getDelivery(id: number, attemptsLimit?: number): Promise<{ delivery: Delivery; attempts: DeliveryAttemptRecord[] } | null>;
  /** Sends a delivery again, whatever its state (same webhook-id); false when there is no such delivery. */
  replayDelivery(id: number, now: number): Promise<boolean>;
  /** Replays every delivery created at or after `sinceMs` (optionally of one subscription, or one state); returns the count. */
  replayDeliveriesSince(sinceMs: number, filter: Omit<DeliveryFilter, 'sinceMs'>, now: number): Promise<number>;
  deliveryCounts(now: number): Promise<DeliveryCounts>;
  /** The events of these ids that exist (oldest first): what a list of deliveries shows each one carries. */
  eventsByIds(ids: readonly string[]): Promise<StatusEvent[]>;
  /** The subscriptions of these ids that still exist: where a list of deliveries went. */
  subscriptionsByIds(ids: readonly string[]): Promise<StoredSubscription[]>;
}
