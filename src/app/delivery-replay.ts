/**
 * Sending deliveries again: one by its id, or every delivery made since an instant. What
 * `POST /api/deliveries/:id/replay`, `POST /api/delivery-replays` and the admin pages' buttons
 * all do, with one reading of `since`.
 */
import { requireInstant } from '../core/instant.ts';
import type { Clock, DeliveryState, OutboxSignal, OutboxStore } from '../core/ports.ts';

export type ReplayDeps = { store: Pick<OutboxStore, 'replayDelivery' | 'replayDeliveriesSince'>; clock: Clock; outbox: OutboxSignal };

/** `since` as the request gave it: a date or an ISO 8601 time with offset, checked here. */
export type ReplaySince = { since: string | undefined; subscriptionId?: string; state?: DeliveryState };

/** Queues one delivery to be sent again; false when there is no delivery with that id. */
export async function replayDelivery({ store, clock, outbox }: ReplayDeps, id: number): Promise<boolean> {
  if (!(await store.replayDelivery(id, clock.now()))) return false;
  outbox.outboxChanged();
  return true;
}

/** How many deliveries were queued again; ApiError 400 (nothing queued) when `since` is not an instant. */
export async function replayDeliveriesSince({ store, clock, outbox }: ReplayDeps, request: ReplaySince): Promise<number> {
  const sinceMs = requireInstant(request.since, 'since');
  const replayed = await store.replayDeliveriesSince(sinceMs, { subscriptionId: request.subscriptionId, state: request.state }, clock.now());
  if (replayed > 0) outbox.outboxChanged();
  return replayed;
}
