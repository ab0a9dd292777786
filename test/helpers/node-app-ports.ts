/** The Node runtime's half of AppPorts (app-deps.ts): undici webhooks, the URL guard, sanitize-html, the public folder, a fresh secret key. */
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { readPublicFolder } from '../../src/adapters/public-folder.ts';
import type { SqliteConnection } from '../../src/adapters/sqlite-connection.ts';
import { checkWebhookUrl } from '../../src/adapters/webhook-target-guard.ts';
import type { Clock, Logger } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import type { AppPorts } from './app-deps.ts';

export async function nodeAppPorts(
  connection: SqliteConnection,
  logger: Logger,
  options: { clock?: Clock; allowPrivateWebhooks?: boolean; secrets?: SecretBox; withAssets?: boolean } = {},
): Promise<AppPorts> {
  return {
    connection,
    logger,
    clock: options.clock,
    webhooks: createHttpWebhookSender({ allowPrivate: options.allowPrivateWebhooks ?? false, userAgent: 'statuswatch-test', clock: options.clock }),
    secrets: options.secrets ?? (await createSecretBox(generateSecretKey())),
    checkWebhookTarget: checkWebhookUrl,
    sanitizeHtml: sanitizeNoteHtml,
    assets: options.withAssets ? readPublicFolder() : undefined,
  };
}
