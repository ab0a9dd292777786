/**
 * The workspace app from the settings, for buildServices (services.ts): one AppTokens shared
 * by the install routes and the message sender, so a refresh is never raced by a second instance
 * of our own. Undefined while APP_CLIENT_ID or APP_CLIENT_SECRET is unset.
 */
import { createWebApiClient } from '../adapters/web-api-client.ts';
import { createAppMessageSender, type AppMessageSender } from '../app/workspace-app/message-sender.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../app/workspace-app/index.ts';
import type { Config } from '../config.ts';
import type { AppMessageStore, Clock, InstallationStore, Logger, Mailer, OneTimeKeyStore } from '../core/ports.ts';
import type { SecretBox } from '../core/secret-box.ts';

export type WorkspaceAppParts = {
  store: InstallationStore & OneTimeKeyStore & AppMessageStore;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  mailer: Mailer | null;
  publicUrl: string;
};

export type ConfiguredWorkspaceApp = WorkspaceApp & { messages: AppMessageSender };

export function createWorkspaceAppFromConfig(config: Config, parts: WorkspaceAppParts): ConfiguredWorkspaceApp | undefined {
  if (!config.APP_CLIENT_ID || !config.APP_CLIENT_SECRET) return undefined;
  const webApi = createWebApiClient({ baseUrl: config.APP_API_URL, clientId: config.APP_CLIENT_ID, clientSecret: config.APP_CLIENT_SECRET });
  const app = createWorkspaceApp({
    store: parts.store,
    webApi,
    box: parts.secrets,
    clock: parts.clock,
    logger: parts.logger,
    mailer: parts.mailer,
    adminEmail: config.ADMIN_EMAIL,
    publicUrl: parts.publicUrl,
    apiUrl: config.APP_API_URL,
    clientId: config.APP_CLIENT_ID,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  const messages = createAppMessageSender({
    store: parts.store,
    chat: webApi,
    tokens: app.tokens,
    clock: parts.clock,
    logger: parts.logger,
    publicUrl: parts.publicUrl,
  });
  return { ...app, messages };
}
