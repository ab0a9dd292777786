/**
 * The archive in SQLite: every port of the Store over one connection (better-sqlite3 on Node, D1
 * on Workers; sqlite-connection.ts), one adapter file per port. The poll path's reads and the
 * lease statements are prepared once (sqlite-statements.ts) and shared.
 */
import type { Store } from '../core/ports.ts';
import { DEFAULT_RETENTION } from '../core/retention.ts';
import { createSqliteAdminAccessStore } from './sqlite-admin-access.ts';
import { createSqliteAppMessageStore } from './sqlite-app-messages.ts';
import { createSqliteArchiveReads } from './sqlite-archive-reads.ts';
import { createSqliteArchiveWrites } from './sqlite-archive-writes.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { createSqliteInstallationStore } from './sqlite-installations.ts';
import { createSqliteLeases } from './sqlite-leases.ts';
import { createSqliteLinkTokenStore } from './sqlite-link-tokens.ts';
import { createSqliteOneTimeKeyStore } from './sqlite-one-time-keys.ts';
import { createSqliteMcpAccessStore } from './sqlite-mcp-access.ts';
import { createSqliteOutboxStore } from './sqlite-outbox.ts';
import { createSqliteRateLimitStore } from './sqlite-rate-limits.ts';
import { createSqliteRetentionStore } from './sqlite-retention.ts';
import { createSqliteSourceStore } from './sqlite-sources.ts';
import { preparePollStatements } from './sqlite-statements.ts';
import { createSqliteSubscriptionStore } from './sqlite-subscriptions.ts';

export type SqliteStoreOptions = {
  /** REJECTED_PAYLOADS_MAX_BYTES: refused payloads kept in all, held by every write that adds one. */
  rejectedPayloadsMaxBytes?: number;
  /** The rate limiters' logs kept at most; RATE_LIMIT_ROWS_MAX unless set (tests flood a small one). */
  rateLimitRowsMax?: number;
};

export function createSqliteStore(connection: SqliteConnection, options: SqliteStoreOptions = {}): Store {
  const st = preparePollStatements(connection.db);
  return {
    ...createSqliteArchiveWrites(connection, st, options.rejectedPayloadsMaxBytes ?? DEFAULT_RETENTION.rejectedPayloadsMaxBytes),
    ...createSqliteLeases(connection, st),
    ...createSqliteArchiveReads(connection, st),
    ...createSqliteSubscriptionStore(connection),
    ...createSqliteOutboxStore(connection),
    ...createSqliteLinkTokenStore(connection),
    ...createSqliteRateLimitStore(connection, options.rateLimitRowsMax),
    ...createSqliteAdminAccessStore(connection, options.rateLimitRowsMax),
    ...createSqliteRetentionStore(connection),
    ...createSqliteInstallationStore(connection),
    ...createSqliteOneTimeKeyStore(connection),
    ...createSqliteMcpAccessStore(connection),
    ...createSqliteAppMessageStore(connection),
    ...createSqliteSourceStore(connection),
  };
}
