/** Rows of the notification tables as the ports' types, and back: shared by the subscription and outbox adapters. */
import type { EventData, EventType, StatusEvent } from '../core/events.ts';
import type { Delivery, StoredSubscription, SubscriptionPatch } from '../core/ports.ts';
import type { SubscriptionFilters } from '../core/subscription.ts';
import type * as t from './store-schema.ts';

/** An events row as the core's event (the store's StoredEvent adds its sequence and poll run). */
export function toStatusEvent(row: typeof t.events.$inferSelect): StatusEvent {
  return {
    id: row.id,
    type: row.type as EventType,
    incidentId: row.incidentId,
    revision: row.revision,
    occurredAt: row.occurredMs,
    detectedAt: row.detectedMs,
    backfill: row.backfill,
    data: JSON.parse(row.dataJson) as EventData,
  };
}

export function toSubscription(row: typeof t.subscriptions.$inferSelect): StoredSubscription {
  return {
    id: row.id,
    channel: row.channel,
    target: row.target,
    targetName: row.targetName,
    filters: JSON.parse(row.filtersJson) as SubscriptionFilters,
    timeZone: row.timeZone,
    status: row.status,
    origin: row.origin,
    pausedReason: row.pausedReason,
    secretSealed: row.secretSealed,
    previousSecretSealed: row.previousSecretSealed,
    previousSecretUntil: row.previousSecretUntilMs,
    failingSince: row.failingSinceMs,
    lastSuccessAt: row.lastSuccessMs,
    createdAt: row.createdMs,
    updatedAt: row.updatedMs,
  };
}

export function toSubscriptionRow(sub: StoredSubscription): typeof t.subscriptions.$inferInsert {
  return {
    id: sub.id,
    channel: sub.channel,
    target: sub.target,
    targetName: sub.targetName ?? null,
    filtersJson: JSON.stringify(sub.filters),
    timeZone: sub.timeZone,
    status: sub.status,
    origin: sub.origin,
    pausedReason: sub.pausedReason,
    secretSealed: sub.secretSealed,
    previousSecretSealed: sub.previousSecretSealed,
    previousSecretUntilMs: sub.previousSecretUntil,
    failingSinceMs: sub.failingSince,
    lastSuccessMs: sub.lastSuccessAt,
    createdMs: sub.createdAt,
    updatedMs: sub.updatedAt,
  };
}

export function patchColumns(patch: SubscriptionPatch): Partial<typeof t.subscriptions.$inferInsert> {
  const set: Partial<typeof t.subscriptions.$inferInsert> = {};
  if (patch.target !== undefined) set.target = patch.target;
  if (patch.filters !== undefined) set.filtersJson = JSON.stringify(patch.filters);
  if (patch.timeZone !== undefined) set.timeZone = patch.timeZone;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.pausedReason !== undefined) set.pausedReason = patch.pausedReason;
  if (patch.secretSealed !== undefined) set.secretSealed = patch.secretSealed;
  if (patch.previousSecretSealed !== undefined) set.previousSecretSealed = patch.previousSecretSealed;
  if (patch.previousSecretUntil !== undefined) set.previousSecretUntilMs = patch.previousSecretUntil;
  if (patch.failingSince !== undefined) set.failingSinceMs = patch.failingSince;
  return set;
}

export function toDelivery(row: typeof t.deliveries.$inferSelect): Delivery {
  return {
    id: row.id,
    key: row.key,
    subscriptionId: row.subscriptionId,
    channel: row.channel,
    eventIds: JSON.parse(row.eventIdsJson) as string[],
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptMs,
    createdAt: row.createdMs,
    finishedAt: row.finishedMs,
    lastError: row.lastError,
  };
}
