/** The Workers pool's stand-in for test/helpers/app-ports.ts: the Workers form's AppPorts over a fresh, empty D1 database. */
import { d1Connection } from '../../../src/adapters/d1-connection.ts';
import { checkWebhookUrlWithoutDns, createFetchWebhookSender } from '../../../src/adapters/fetch-webhook-sender.ts';
import { sanitizeNoteHtml } from '../../../src/adapters/html-sanitizer.ts';
import type { Clock, Logger } from '../../../src/core/ports.ts';
import { createSecretBox } from '../../../src/core/secret-box.ts';
import type { AppPorts } from '../../helpers/app-deps.ts';
import { openD1Slot, type D1Slot } from './d1-slots.ts';
import { publicAssets } from './public-assets.ts';

export type OpenedAppPorts = { ports: AppPorts; close(): Promise<void> };

/** What the harness's app-service.ts also needs: the slot (its `dir`), and the settings it varies. */
export type WorkersPortOptions = { dir?: string; clock?: Clock; allowPrivateWebhooks?: boolean; secretKey?: string };

export async function openWorkersPorts(logger: Logger, options: WorkersPortOptions = {}): Promise<OpenedAppPorts & { slot: D1Slot }> {
  const slot = await openD1Slot(options.dir);
  const webhooks = createFetchWebhookSender({ allowPrivate: options.allowPrivateWebhooks ?? false, userAgent: 'statuswatch-test', clock: options.clock });
  const ports: AppPorts = {
    connection: d1Connection(slot.db),
    logger,
    clock: options.clock,
    webhooks,
    // As the Worker keeps SECRET_KEY as a secret: the key stays with the archive across a restart.
    secrets: await createSecretBox(options.secretKey ?? slot.secretKey),
    checkWebhookTarget: checkWebhookUrlWithoutDns,
    sanitizeHtml: sanitizeNoteHtml,
    assets: publicAssets(),
  };
  return {
    ports,
    slot,
    async close() {
      await webhooks.close();
      slot.release();
    },
  };
}

export const openAppPorts = (logger: Logger): Promise<OpenedAppPorts> => openWorkersPorts(logger);
