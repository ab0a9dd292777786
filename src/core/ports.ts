/**
 * The interfaces the core and the use cases need from the outside world, one file per concern
 * under ports/; adapters implement them. This file gathers them, and names the compositions the
 * use cases take.
 */
import type { ArchiveQueries } from './ports/archive-reads.ts';
import type { ArchiveWrites } from './ports/archive-writes.ts';
import type { AdminAccessStore, LinkTokenStore, RateLimitStore } from './ports/access.ts';
import type { AppMessageStore } from './ports/app-messages.ts';
import type { InstallationStore } from './ports/installations.ts';
import type { Leases } from './ports/leases.ts';
import type { OneTimeKeyStore } from './ports/one-time-keys.ts';
import type { McpAccessStore } from './ports/mcp-access.ts';
import type { OutboxStore } from './ports/outbox.ts';
import type { RetentionStore } from './ports/retention.ts';
import type { SourceStore } from './ports/sources.ts';
import type { SubscriptionStore } from './ports/subscriptions.ts';

export type * from './ports/access.ts';
export type * from './ports/app-messages.ts';
export type * from './ports/archive-reads.ts';
export type * from './ports/archive-writes.ts';
export type * from './ports/feed-client.ts';
export type * from './ports/installations.ts';
export type * from './ports/leases.ts';
export type * from './ports/one-time-keys.ts';
export type * from './ports/mcp-access.ts';
export type * from './ports/outbox.ts';
export type * from './ports/retention.ts';
export type * from './ports/runtime.ts';
export type * from './ports/senders.ts';
export type * from './ports/sources.ts';
export type * from './ports/subscriptions.ts';
export type * from './ports/web-api.ts';
export type * from './ports/web-api-install.ts';

/**
 * What the poller needs: the archive's write side, the lease, whom deliveries are planned for, and
 * the feed's health and the ongoing incidents, for the monitor's own events (monitor-episode.ts).
 */
export type PollStore = ArchiveWrites & Leases & Pick<SubscriptionStore, 'activeSubscriptions'> & Pick<ArchiveQueries, 'feedHealth' | 'ongoingIncidents'>;

/**
 * What the read faces (API, pages, feeds, MCP) take from the archive: its queries, and its
 * generation, which keys their caches and memos.
 */
export type ArchiveReads = ArchiveQueries & Pick<ArchiveWrites, 'archiveGeneration'>;

/** What the notification use cases need: subscriptions, the outbox, link tokens and rate limits. */
export type NotificationStore = SubscriptionStore & OutboxStore & LinkTokenStore & RateLimitStore;

/** Every port of the archive's database, as one SQLite adapter (sqlite-store.ts) implements them. */
export type Store = PollStore &
  ArchiveQueries &
  NotificationStore &
  AdminAccessStore &
  RetentionStore &
  InstallationStore &
  OneTimeKeyStore &
  McpAccessStore &
  AppMessageStore &
  SourceStore;
