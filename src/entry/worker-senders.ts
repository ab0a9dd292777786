/**
 * How a Worker sends webhooks and mail, in one place so the entry stays the same when the senders
 * change: webhooks with fetch (adapters/fetch-webhook-sender.ts), mail through Postmark's HTTP API
 * when MAIL_API_TOKEN is set (SMTP needs sockets a Worker does not have), else no mail.
 */
import { createFetchWebhookSender } from '../adapters/fetch-webhook-sender.ts';
import { createMailApiMailerFromConfig } from '../adapters/postmark-mailer.ts';
import type { Config } from '../config.ts';
import type { Mailer, WebhookSender } from '../core/ports.ts';

export const WORKER_USER_AGENT = 'statuswatch/0.1 (self-hosted status feed monitor; Workers)';

export type WorkerSenders = { webhooks: WebhookSender; mailer: Mailer | null };

export function createWorkerSenders(config: Config): WorkerSenders {
  return {
    webhooks: createFetchWebhookSender({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, userAgent: WORKER_USER_AGENT }),
    mailer: createMailApiMailerFromConfig(config),
  };
}

/** The subscription service judges URLs by the sender's own rules: one it accepts is one the sender calls. */
export { checkWebhookUrlWithoutDns as checkWorkerWebhookUrl } from '../adapters/fetch-webhook-sender.ts';
