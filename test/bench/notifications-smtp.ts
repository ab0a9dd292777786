/**
 * Notifications, case 3: N rendered notification emails through the SMTP mailer to a local
 * smtp-server, pooled (as the service runs it) next to one connection per message.
 */
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { renderEmail } from '../../src/core/email-render.ts';
import { groupForMessages } from '../../src/core/notification-message.ts';
import type { Mailer, OutgoingMail } from '../../src/core/ports.ts';
import { startSmtp } from '../helpers/smtp.ts';
import { expectBench } from './harness.ts';
import { newsPoll } from './notifications-world.ts';
import { DELIVERY_CONCURRENCY } from './notifications-webhooks.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';

export type SmtpThroughputOptions = { mails: number; maxConnections: number; rounds: number; warmUpRounds: number };

export type SmtpFigures = {
  mails: number;
  maxConnections: number;
  mailBytes: number;
  /** Milliseconds per round of `mails` messages. */
  pooled: Summary;
  unpooled: Summary;
  /** SMTP sessions the server saw per round. */
  connections: { pooled: number[]; unpooled: number[] };
};

const PUBLIC_URL = 'https://status.example.test';

export async function benchSmtpThroughput(options: SmtpThroughputOptions): Promise<SmtpFigures> {
  const smtp = await startSmtp();
  const from = 'statuswatch <status@example.test>';
  const pooledMailer = createSmtpMailer({ smtpUrl: smtp.url, from, pool: true, maxConnections: options.maxConnections });
  const unpooledMailer = createSmtpMailer({ smtpUrl: smtp.url, from, pool: false });
  try {
    const mail = notificationMail();
    const connections = { pooled: [] as number[], unpooled: [] as number[] };
    const sendCase = (name: string, mailer: Mailer, counted: number[]): BenchCase => {
      let sessionsBefore = 0;
      return {
        name,
        before() {
          smtp.received.length = 0;
          sessionsBefore = smtp.connections;
        },
        run: () => sendAll(mailer, mail, options.mails),
        after() {
          expectBench(smtp.received.length === options.mails, `${name}: the server should have got ${options.mails} mails, got ${smtp.received.length}`);
          counted.push(smtp.connections - sessionsBefore);
        },
      };
    };
    const pooled = sendCase(`pooled, ${options.maxConnections} connections`, pooledMailer, connections.pooled);
    const unpooled = sendCase('a connection per mail', unpooledMailer, connections.unpooled);
    // Untimed: nodemailer's first send and the pool's connections are set-up, not throughput.
    await sendAll(pooledMailer, mail, DELIVERY_CONCURRENCY);
    await sendAll(unpooledMailer, mail, DELIVERY_CONCURRENCY);
    await interleave([unpooled, pooled], options.warmUpRounds);
    connections.pooled.length = 0;
    connections.unpooled.length = 0;
    const samples = await interleave([unpooled, pooled], options.rounds);
    return {
      mails: options.mails,
      maxConnections: options.maxConnections,
      mailBytes: Buffer.byteLength(mail.text) + Buffer.byteLength(mail.html),
      pooled: summarize(samples.get(pooled.name)!),
      unpooled: summarize(samples.get(unpooled.name)!),
      connections,
    };
  } finally {
    pooledMailer.close();
    unpooledMailer.close();
    await smtp.close();
  }
}

/** The email a subscriber gets for a new incident, rendered as the deliverer renders it. */
function notificationMail(): Omit<OutgoingMail, 'to'> {
  const update = groupForMessages([newsPoll(0).event])[0];
  expectBench(update !== undefined, 'a new incident should make one message');
  return renderEmail(update, {
    publicUrl: PUBLIC_URL,
    timeZone: 'UTC',
    unsubscribeUrl: `${PUBLIC_URL}/unsubscribe?token=bench`,
    manageUrl: `${PUBLIC_URL}/manage?token=bench`,
    sanitizeHtml: sanitizeNoteHtml,
  });
}

/**
 * As the deliverer sends, each to its own address: as many at once as the mailer sends at once (a
 * pool's connections), or DELIVERY_CONCURRENCY for a mailer without a bound of its own.
 */
async function sendAll(mailer: Mailer, mail: Omit<OutgoingMail, 'to'>, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const sent = await mailer.send({ ...mail, to: `subscriber${i}@example.test` });
      if (!sent.ok) throw new Error(`mail ${i}: ${sent.kind} ${sent.code ?? ''} ${sent.response}`);
    }
  };
  await Promise.all(Array.from({ length: mailer.sendsAtOnce ?? DELIVERY_CONCURRENCY }, worker));
}
