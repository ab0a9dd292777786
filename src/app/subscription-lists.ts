/**
 * The admin's lists of subscriptions and of deliveries, one page at a time: what
 * `GET /api/subscriptions`, `GET /api/deliveries` and the admin pages `/admin/subscriptions` and
 * `/admin/deliveries` show. Each face names its list (its cursors are its own) and its page size.
 */
import type { CursorCodec } from '../core/cursor.ts';
import type { Delivery, DeliveryFilter, StoredSubscription, SubscriptionFilter } from '../core/ports.ts';
import type { OutboxStore } from '../core/ports/outbox.ts';
import type { SubscriptionStore } from '../core/ports/subscriptions.ts';
import { cursorPage, isText, isWhole } from './cursor-page.ts';

export type ListDeps = { store: Pick<SubscriptionStore, 'listSubscriptions'> & Pick<OutboxStore, 'listDeliveries'>; cursors: CursorCodec };

/** `list`: the name in the page's cursors (`subscriptions`, `admin-subscriptions`); `limit` already bounded by the face. */
export type ListRequest = { list: string; cursor: string | undefined; limit: number };

/** Subscriptions by id; an invalid_cursor ApiError for a cursor of another list. */
export function subscriptionPage(
  { store, cursors }: ListDeps,
  filter: SubscriptionFilter,
  request: ListRequest,
): Promise<{ page: StoredSubscription[]; next: string }> {
  return cursorPage<StoredSubscription, string>(
    cursors,
    request,
    request.list,
    (after, limit) => store.listSubscriptions(filter, after, limit),
    (s) => s.id,
    { accepts: isText, field: 'a' },
  );
}

/** Deliveries, newest first; an invalid_cursor ApiError for a cursor of another list. */
export function deliveryPage({ store, cursors }: ListDeps, filter: DeliveryFilter, request: ListRequest): Promise<{ page: Delivery[]; next: string }> {
  return cursorPage<Delivery, number>(
    cursors,
    request,
    request.list,
    (before, limit) => store.listDeliveries(filter, before, limit),
    (d) => d.id,
    { accepts: isWhole, field: 'b' },
  );
}
