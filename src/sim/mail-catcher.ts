/**
 * The demo's mail catcher: an SMTP server on loopback that keeps the last mails it received, and
 * a page listing them, so `/subscribe` works end to end in `npm run demo` without a real mailbox.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { reloadOf, sendCatcherPage, sendNotFound } from './catcher-page.ts';
import { keptList } from './kept-list.ts';
import { renderMailCatcherPage, type CaughtMail } from './mail-catcher-page.ts';

export type MailCatcherOptions = {
  /** Default 127.0.0.1: the page shows every mail, so it is not for other machines. */
  host?: string;
  /**
   * Mails kept; older ones are dropped (default 1,000: a directory group's sign-up mails, one per
   * member, must not push the rest out within minutes).
   */
  maxMails?: number;
  /** The kept mails' texts together at most (default 10 MB); older ones are dropped. */
  maxTotalBytes?: number;
  /** Larger messages are refused with 552 (default 1 MB). */
  maxMessageBytes?: number;
};

export type RunningMailCatcher = {
  /** For SMTP_URL, e.g. smtp://127.0.0.1:40123 */
  smtpUrl: string;
  /** The page listing what arrived. */
  pageUrl: string;
  mails(): readonly CaughtMail[];
  close(): Promise<void>;
};

export async function startMailCatcher(options: MailCatcherOptions = {}): Promise<RunningMailCatcher> {
  const { host = '127.0.0.1', maxMails = 1_000, maxTotalBytes = 10_000_000, maxMessageBytes = 1_000_000 } = options;
  const kept = keptList<CaughtMail>({ maxItems: maxMails, maxBytes: maxTotalBytes });
  const keep = (mail: CaughtMail) => kept.add(mail, mailBytes(mail));

  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    size: maxMessageBytes,
    rejectOversized: true,
    maxClients: 20,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (!stream.sizeExceeded) chunks.push(chunk); // an oversized mail is refused: keep none of it
      });
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback();
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            const envelopeTo = session.envelope.rcptTo.map((r) => r.address);
            keep({
              receivedAtMs: Date.now(),
              from: parsed.from?.text || (session.envelope.mailFrom ? session.envelope.mailFrom.address : ''),
              to: parsed.to ? addressesOf(parsed.to) : envelopeTo,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(0, host, () => resolve());
  });

  const page = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://catcher');
    if (req.method !== 'GET' || url.pathname !== '/') return sendNotFound(res);
    const to = (url.searchParams.get('to') ?? '').trim().slice(0, RECIPIENT_FILTER_MAX_CHARS);
    sendCatcherPage(res, renderMailCatcherPage(kept.items(), { to, maxMails, maxTotalBytes, keptBytes: kept.bytes(), reload: reloadOf(req.url ?? '/') }));
  });
  await new Promise<void>((resolve, reject) => {
    page.once('error', reject);
    page.listen(0, host, () => resolve());
  });

  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    smtpUrl: `smtp://${urlHost}:${(smtp.server.address() as AddressInfo).port}`,
    pageUrl: `http://${urlHost}:${(page.address() as AddressInfo).port}/`,
    mails: () => kept.items(),
    async close() {
      page.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => page.close(() => resolve())), new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}

/** A filter longer than any address is a paste gone wrong, not a recipient. */
const RECIPIENT_FILTER_MAX_CHARS = 320;

/** What a kept mail costs: its texts, as they are held. */
function mailBytes(mail: CaughtMail): number {
  return [mail.from, mail.subject, mail.text, ...mail.to].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
}

function addressesOf(field: AddressObject | AddressObject[]): string[] {
  return (Array.isArray(field) ? field : [field]).flatMap((group) => group.value.map((a) => (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? ''))));
}
