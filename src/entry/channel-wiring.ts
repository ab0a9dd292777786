/**
 * What carries a delivery out, built the same way by both runtimes from their own senders: the
 * group subscriptions (issue 11), the workspace app (issue 10), and the channel sender that uses
 * them beside webhooks and mail.
 */
import type { SqliteConnection } from '../adapters/sqlite-connection.ts';
import { sanitizeNoteHtml } from '../adapters/html-sanitizer.ts';
import { createChannelSender, type ChannelSender } from '../app/channel-sender.ts';
import type { Config } from '../config.ts';
import type { Clock, Logger, Mailer, Store, WebhookSender } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { GroupDeps } from '../app/group-subscriptions.ts';
import { createWorkspaceAppFromConfig, type ConfiguredWorkspaceApp } from './app-messaging.ts';
import { createGroupWiring } from './group-wiring.ts';

export type ChannelWiringInput = {
  config: Config;
  store: Store;
  connection: SqliteConnection;
  secrets: SecretBox;
  webhooks: WebhookSender;
  mailer: Mailer | null;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  /** False for a command that keeps no secrets: it has no workspace app. */
  workspaceApp: boolean;
  /** Mails one group delivery's attempt sends at most (a Worker's subrequest budget); unbounded by default. */
  groupMailsPerAttempt?: number;
  /** False where only the scheduled round syncs groups (a Worker's cron); true by default. */
  groupSyncsOnDemand?: boolean;
  /** Aborted when the process stops: every running group sync ends at once. */
  stopSignal?: AbortSignal;
};

export type ChannelWiring = { sender: ChannelSender; groups: GroupDeps; workspaceApp: ConfiguredWorkspaceApp | undefined };

export function createChannelWiring(input: ChannelWiringInput): ChannelWiring {
  const { config, store, secrets, mailer, clock, logger, publicUrl } = input;
  const groups = createGroupWiring({
    connection: input.connection,
    config,
    secrets,
    mailer,
    clock,
    logger,
    publicUrl,
    sanitizeHtml: sanitizeNoteHtml,
    maxSendsPerAttempt: input.groupMailsPerAttempt,
    syncsOnDemand: input.groupSyncsOnDemand,
    syncSignal: input.stopSignal,
  });
  const workspaceApp = input.workspaceApp ? createWorkspaceAppFromConfig(config, { store, secrets, clock, logger, mailer, publicUrl }) : undefined;
  const sender = createChannelSender({
    store,
    webhooks: input.webhooks,
    mailer,
    secrets,
    clock,
    publicUrl,
    sanitizeHtml: sanitizeNoteHtml,
    app: workspaceApp?.messages,
    groupMail: groups.mail,
  });
  return { sender, groups, workspaceApp };
}
