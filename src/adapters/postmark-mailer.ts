/**
 * The Mailer over Postmark's HTTP API (`POST /email`), for the Workers form where nodemailer
 * cannot run: fetch only, a timeout over the whole exchange, a cap on what is read of the
 * answer, and every answer sorted into what the caller should do.
 */
import type { Config } from '../config.ts';
import { parseMailbox, recipientRefusal } from '../core/email-address.ts';
import type { MailResult, Mailer, OutgoingMail } from '../core/ports.ts';
import { parseWellFormedJson, wellFormedPrefix } from '../core/well-formed-text.ts';
import { createTextPrefix, readCappedBody } from './capped-body.ts';

export const POSTMARK_API_URL = 'https://api.postmarkapp.com';
export const POSTMARK_DEFAULT_STREAM = 'outbound';
// As long as the SMTP socket timeout: Postmark answers in well under a second.
const MAIL_API_TIMEOUT_MS = 30_000;
// Postmark's answers are a few hundred bytes; more is not Postmark talking.
const MAIL_API_MAX_RESPONSE_BYTES = 16 * 1024;
// What of Postmark's Message is kept in the result (and so in the delivery log).
const MAX_MESSAGE_CHARS = 500;

export type PostmarkMailerOptions = {
  /** The server token (`MAIL_API_TOKEN`), sent as X-Postmark-Server-Token. */
  serverToken: string;
  /** The From header (`MAIL_FROM`): a confirmed sender signature on the Postmark server. */
  from: string;
  /** `MAIL_API_URL`; Postmark's own by default. Tests point it at loopback. */
  apiUrl?: string;
  /** `MAIL_API_STREAM`: the message stream, `outbound` (transactional) by default. */
  messageStream?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
};

export function createPostmarkMailer(options: PostmarkMailerOptions): Mailer {
  const endpoint = `${(options.apiUrl ?? POSTMARK_API_URL).replace(/\/+$/, '')}/email`;
  const timeoutMs = options.timeoutMs ?? MAIL_API_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? MAIL_API_MAX_RESPONSE_BYTES;
  const sender = parseMailbox(options.from);
  if (!sender.ok) throw new Error(`the sender ${JSON.stringify(options.from)} is not one mailbox: ${sender.reason}`);

  return {
    async send(mail: OutgoingMail): Promise<MailResult> {
      // Postmark reads To as a comma-separated list: only one bare address may reach it.
      const refused = recipientRefusal(mail.to);
      if (refused) return refused;
      const signal = AbortSignal.timeout(timeoutMs);
      let status: number | null = null;
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', 'x-postmark-server-token': options.serverToken },
          body: JSON.stringify({
            From: options.from,
            To: mail.to,
            Subject: mail.subject,
            TextBody: mail.text,
            HtmlBody: mail.html,
            Headers: Object.entries({ ...mail.headers, ...(mail.messageId ? { 'Message-ID': mail.messageId } : {}) }).map(([Name, Value]) => ({ Name, Value })),
            MessageStream: options.messageStream ?? POSTMARK_DEFAULT_STREAM,
          }),
          // Postmark never redirects; a 3xx means MAIL_API_URL points elsewhere.
          redirect: 'manual',
          signal,
        });
        status = response.status;
        const answer = createTextPrefix(maxResponseBytes);
        const read = await readCappedBody(response.body, maxResponseBytes, answer.add);
        return classifyPostmarkAnswer(status, read.cut ? null : answer.text);
      } catch (error) {
        const why = signal.aborted ? `no complete answer within ${timeoutMs} ms` : describeError(error);
        return { ok: false, kind: 'connection', code: status, response: `Postmark: ${why}`, retryable: true };
      }
    },
    close() {
      // fetch keeps no connection of ours open.
    },
  };
}

/**
 * The mailer the settings ask for, where SMTP cannot run (Workers): Postmark when MAIL_API_TOKEN
 * is set, else none (email off). config.ts has already refused MAIL_API_TOKEN without MAIL_FROM.
 */
export function createMailApiMailerFromConfig(config: Pick<Config, 'MAIL_API_TOKEN' | 'MAIL_API_URL' | 'MAIL_API_STREAM' | 'MAIL_FROM'>): Mailer | null {
  if (!config.MAIL_API_TOKEN || !config.MAIL_FROM) return null;
  return createPostmarkMailer({
    serverToken: config.MAIL_API_TOKEN,
    from: config.MAIL_FROM,
    apiUrl: config.MAIL_API_URL,
    messageStream: config.MAIL_API_STREAM,
  });
}

type PostmarkAnswer = { ErrorCode?: unknown; Message?: unknown; MessageID?: unknown };

/**
 * What a Postmark answer means for the caller, from the HTTP status and Postmark's ErrorCode
 * (`text` is null when the answer was longer than the cap):
 *
 * - 200 with ErrorCode 0 and a MessageID: sent.
 * - 422 ErrorCode 406 (inactive recipient: the address hard-bounced, complained or was
 *   suppressed): `recipient_rejected`, the address is suppressed here too.
 * - 422 ErrorCode 300 (invalid email request), 402/403/409 (the JSON), 410/411 (batch, attachment):
 *   `message_rejected`: sending this same request again gets the same answer.
 * - 401 / ErrorCode 10 (bad token), 400/401 (sender signature missing or unconfirmed), 405 (not
 *   allowed to send: credits), 412/413 (account pending or may not send): `connection`, to retry:
 *   the account's door is shut for every message, and fixing the settings or the account lets the
 *   same mail through, as with a refused SMTP login.
 * - 429, ErrorCode 100 (maintenance), 5xx, and ErrorCodes not listed: `temporary`, to retry.
 * - Anything else (a 3xx, a 404, a 200 that is not Postmark's JSON): `connection`, to retry:
 *   MAIL_API_URL does not lead to Postmark's API.
 */
export function classifyPostmarkAnswer(status: number, text: string | null): MailResult {
  const answer = parseAnswer(text);
  const errorCode = typeof answer?.ErrorCode === 'number' ? answer.ErrorCode : null;
  const message = typeof answer?.Message === 'string' ? wellFormedPrefix(answer.Message, MAX_MESSAGE_CHARS) : '';
  const response = `Postmark HTTP ${status}${errorCode !== null ? `, ErrorCode ${errorCode}` : ''}${message ? `: ${message}` : ''}`;
  const failed = (kind: Exclude<MailResult, { ok: true }>['kind']): MailResult => ({
    ok: false,
    kind,
    code: status,
    response,
    retryable: kind !== 'recipient_rejected' && kind !== 'message_rejected',
  });

  if (status >= 200 && status < 300) {
    if (errorCode === 0 && typeof answer?.MessageID === 'string') return { ok: true, response, messageId: answer.MessageID };
    return failed('connection');
  }
  if (status === 429 || status >= 500) return failed('temporary');
  if (status === 401) return failed('connection');
  if (status !== 422 || errorCode === null) return failed('connection');
  if (errorCode === 406) return failed('recipient_rejected');
  if ([300, 402, 403, 409, 410, 411].includes(errorCode)) return failed('message_rejected');
  if ([10, 400, 401, 405, 412, 413].includes(errorCode)) return failed('connection');
  return failed('temporary');
}

function parseAnswer(text: string | null): PostmarkAnswer | null {
  if (text === null) return null;
  try {
    const parsed = parseWellFormedJson(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as PostmarkAnswer) : null;
  } catch {
    return null;
  }
}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${message}${cause}`;
}
