/** The Mailer over SMTP with nodemailer: pooled connections, and every failure sorted into what the caller should do. */
import { createTransport, type NodemailerError } from 'nodemailer';
import { parseMailbox, recipientRefusal } from '../core/email-address.ts';
import type { MailResult, Mailer, OutgoingMail } from '../core/ports.ts';

export type SmtpMailerOptions = {
  /** `smtp://user:pass@host:587` or `smtps://...:465`; query parameters as nodemailer reads them. */
  smtpUrl: string;
  /** The From header and envelope sender (`MAIL_FROM`): one mailbox, as config.ts checks. */
  from: string;
  /** One connection per message when false; default true. */
  pool?: boolean;
  /** Open connections at most, when pooled; default 3. */
  maxConnections?: number;
  timeouts?: { connectMs?: number; greetingMs?: number; socketMs?: number };
};

// nodemailer's defaults (2 minutes to connect, 10 minutes idle) would hold a delivery run for
// far longer than a poll interval when the relay is down.
const CONNECT_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const sender = parseMailbox(options.from);
  if (!sender.ok) throw new Error(`the sender ${JSON.stringify(options.from)} is not one mailbox: ${sender.reason}`);
  const from = { name: sender.mailbox.name ?? '', address: sender.mailbox.address };
  const transport = createTransport({
    url: options.smtpUrl,
    pool: options.pool ?? true,
    maxConnections: options.maxConnections ?? 3,
    connectionTimeout: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
    greetingTimeout: options.timeouts?.greetingMs ?? GREETING_TIMEOUT_MS,
    socketTimeout: options.timeouts?.socketMs ?? SOCKET_TIMEOUT_MS,
    dnsTimeout: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
  });

  // What nodemailer made of it: the URL's query (`?pool=false`, `?maxConnections=10`) wins over
  // the options above. Pooled, the mails past its connections wait in nodemailer's queue.
  const resolved = (transport.transporter as { options?: { pool?: boolean; maxConnections?: number } }).options;
  const sendsAtOnce = resolved?.pool ? resolved.maxConnections : undefined;

  return {
    ...(sendsAtOnce ? { sendsAtOnce } : {}),
    async send(mail: OutgoingMail): Promise<MailResult> {
      const refused = recipientRefusal(mail.to);
      if (refused) return refused;
      try {
        const info = await transport.sendMail({
          // Addresses go in as parsed objects and the envelope is given outright: nodemailer reads
          // a string as an address list, so nothing here is parsed again.
          from,
          to: { name: '', address: mail.to },
          envelope: { from: from.address, to: [{ name: '', address: mail.to }] },
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
          ...(mail.messageId ? { messageId: mail.messageId } : {}),
          // The message is built from strings only: never let a path or URL pull in content.
          disableFileAccess: true,
          disableUrlAccess: true,
        });
        return { ok: true, response: String(info.response ?? ''), messageId: String(info.messageId ?? '') };
      } catch (error) {
        return classifySmtpError(error);
      }
    },
    close() {
      transport.close();
    },
  };
}

/**
 * What a failed send means for the caller, from nodemailer's `responseCode`, `command` and `code`.
 * A reply code decides first: 4xx (and 503, a bad command sequence) may pass later; 5xx to RCPT
 * TO refuses the address for good; any other 5xx refuses this message. Without a reply, no
 * session could carry the message (refused, timed out, TLS), except for an address or a
 * message nodemailer itself refused before sending.
 */
export function classifySmtpError(error: unknown): MailResult & { ok: false } {
  const err = (error ?? {}) as NodemailerError;
  const code = typeof err.responseCode === 'number' ? err.responseCode : null;
  const response = err.response ?? (err instanceof Error ? err.message : String(error));
  const command = err.command ?? '';
  if (code !== null) {
    // A refused login is the relay's whole door shut, not this message's fault: an operator
    // fixing SMTP_URL makes the same mail go through.
    if (command.startsWith('AUTH')) return { ok: false, kind: 'connection', code, response, retryable: true };
    if (code >= 500 && code !== 503) {
      if (command === 'RCPT TO') return { ok: false, kind: 'recipient_rejected', code, response, retryable: false };
      return { ok: false, kind: 'message_rejected', code, response, retryable: false };
    }
    return { ok: false, kind: 'temporary', code, response, retryable: true };
  }
  if (err.code === 'EENVELOPE') return { ok: false, kind: 'recipient_rejected', code: null, response, retryable: false };
  if (err.code === 'EMESSAGE' || err.code === 'ESTREAM') return { ok: false, kind: 'message_rejected', code: null, response, retryable: false };
  return { ok: false, kind: 'connection', code: null, response, retryable: true };
}
