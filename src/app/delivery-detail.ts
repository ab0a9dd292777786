/**
 * One delivery and its newest attempts, as `GET /api/deliveries/:id` and the admin page
 * `/admin/deliveries/:id` show it. Every replay adds attempts without end: both list the newest
 * DELIVERY_ATTEMPTS_LISTED_MAX, and the delivery's own `attempts` still counts them all.
 */
import type { Delivery, DeliveryAttemptRecord } from '../core/ports.ts';
import type { OutboxStore } from '../core/ports/outbox.ts';

export const DELIVERY_ATTEMPTS_LISTED_MAX = 50;

export type DeliveryDetailDeps = { store: Pick<OutboxStore, 'getDelivery'> };

/** The delivery id a path names: a whole number from 1; anything else names no delivery (null). */
export function parseDeliveryId(raw: string): number | null {
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** The delivery `rawId` names and its newest attempts; null when it names none. */
export async function deliveryDetail({ store }: DeliveryDetailDeps, rawId: string): Promise<{ delivery: Delivery; attempts: DeliveryAttemptRecord[] } | null> {
  const id = parseDeliveryId(rawId);
  return id === null ? null : store.getDelivery(id, DELIVERY_ATTEMPTS_LISTED_MAX);
}
