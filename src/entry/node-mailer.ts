/** Which mailer the Node form uses: SMTP when SMTP_URL is set, else Postmark's API when MAIL_API_TOKEN is (config.ts refuses both). */
import { createMailApiMailerFromConfig } from '../adapters/postmark-mailer.ts';
import { createSmtpMailer } from '../adapters/smtp-mailer.ts';
import type { Config } from '../config.ts';
import type { Mailer } from '../core/ports.ts';

export function createNodeMailer(config: Config): Mailer | null {
  if (config.SMTP_URL) return createSmtpMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM ?? 'statuswatch <statuswatch@localhost>' });
  return createMailApiMailerFromConfig(config);
}
