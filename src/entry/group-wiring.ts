/** Wires group subscriptions for buildServices (services.ts): the SQLite store, the SCIM client, the sync and the group mail. */
import { createScimClient } from '../adapters/fetch-scim-client.ts';
import { createSqliteGroupDirectoryStore } from '../adapters/sqlite-scim-groups.ts';
import type { SqliteConnection } from '../adapters/sqlite-connection.ts';
import { createGroupDeletedNotice } from '../app/admin-notice.ts';
import { createGroupMail } from '../app/group-mail.ts';
import { createGroupSync } from '../app/group-sync.ts';
import type { Config } from '../config.ts';
import type { Clock, Logger, Mailer } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { GroupDeps } from '../app/group-subscriptions.ts';

export type GroupWiringInput = {
  connection: SqliteConnection;
  config: Pick<Config, 'SCIM_URL' | 'SCIM_TOKEN' | 'SCIM_SYNC_SECONDS' | 'ADMIN_EMAIL'>;
  /** Null where nothing is mailed: no group mail then, nor a notice to the admin. Group mail needs `secrets` too. */
  secrets: SecretBox | null;
  mailer: Mailer | null;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  sanitizeHtml: (html: string) => string;
  fetch?: typeof fetch;
  /** Mails one group delivery's attempt sends at most (group-mail.ts); unbounded by default. */
  maxSendsPerAttempt?: number;
  /** False where only the scheduled round syncs (a Worker's cron): an alert then waits for it (group-sync.ts). */
  syncsOnDemand?: boolean;
  /** Aborted when the process stops: every running sync ends at once (group-sync.ts). */
  syncSignal?: AbortSignal;
};

export function createGroupWiring(input: GroupWiringInput): GroupDeps {
  const { config, clock, logger } = input;
  const store = createSqliteGroupDirectoryStore(input.connection);
  const directory = config.SCIM_TOKEN ? createScimClient({ baseUrl: config.SCIM_URL, token: config.SCIM_TOKEN, clock, fetch: input.fetch }) : null;
  const sync = createGroupSync({
    store,
    directory,
    clock,
    logger,
    syncSeconds: config.SCIM_SYNC_SECONDS,
    syncsOnDemand: input.syncsOnDemand,
    signal: input.syncSignal,
    announceGroupDeleted: createGroupDeletedNotice({ mailer: input.mailer, adminEmail: config.ADMIN_EMAIL, publicUrl: input.publicUrl, logger }),
  });
  const mail =
    input.mailer && input.secrets
      ? createGroupMail({
          store,
          sync,
          mailer: input.mailer,
          secrets: input.secrets,
          clock,
          logger,
          publicUrl: input.publicUrl,
          sanitizeHtml: input.sanitizeHtml,
          maxSendsPerAttempt: input.maxSendsPerAttempt,
        })
      : null;
  return { store, sync, directory, mail, scimUrl: config.SCIM_URL };
}
