/**
 * Mail goes out through a pool of three SMTP connections, and the mail server answers slowly; two
 * deliverers share the archive (two processes). A mail waiting in the pool for a connection must
 * not be claimed and sent again by the other deliverer once its claim's lease has run out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import { createDeliverer, type Deliverer } from '../../src/app/deliverer.ts';
import type { Clock, Logger, Mailer, Store } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const LEASE_MS = 600;
/** The test clock's time per mail the server accepts. */
const ANSWER_MS = 150;
const SUBSCRIBERS = 12;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('deliverers sharing an archive, with a slow mail server behind a pool of connections', () => {
  let archive: TempArchive | undefined;
  let other: ReturnType<typeof openSqliteArchive> | undefined;
  let smtp: TestSmtp | undefined;
  const mailers: Mailer[] = [];
  afterEach(async () => {
    for (const mailer of mailers.splice(0)) mailer.close();
    other?.close();
    archive?.remove();
    await smtp?.close();
  });

  /** A deliverer of mail over SMTP, pooled as the service's is. */
  async function mailDeliverer(store: Store, name: string, clock: Clock, smtpUrl: string): Promise<Deliverer> {
    const mailer = createSmtpMailer({ smtpUrl, from: 'statuswatch <status@example.test>' });
    mailers.push(mailer);
    const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });
    const secrets = await createSecretBox(generateSecretKey());
    return createDeliverer({
      store,
      sender: createChannelSender({ store, webhooks, mailer, secrets, clock, publicUrl: 'http://status.test', sanitizeHtml: sanitizeNoteHtml }),
      mailer,
      clock,
      logger: quiet,
      publicUrl: 'http://status.test',
      instanceId: `test:${name}`,
      isHolderGone: () => false,
      claimLeaseMs: LEASE_MS,
    });
  }

  it('sends each mail once though the pool holds mails past the lease', async () => {
    // Time is the test's: each mail the server accepts takes ANSWER_MS of it, and meanwhile the
    // second deliverer looks for due deliveries, as another process would.
    const startMs = Date.UTC(2026, 10, 28, 12);
    const testClock = { ms: startMs, now: () => testClock.ms };
    let second: Deliverer | undefined;
    let secondLooking = false;
    let secondClaimed = 0;
    smtp = await startSmtp({
      beforeAccept: async () => {
        // The second's own mails (a deliverer that sent past its claim) are accepted at once.
        if (secondLooking || !second) return;
        secondLooking = true;
        try {
          testClock.ms += ANSWER_MS;
          secondClaimed += (await second.deliverDue()).claimed;
        } finally {
          secondLooking = false;
        }
      },
    });
    archive = openTempArchive();
    for (let n = 0; n < SUBSCRIBERS; n++) {
      await archive.store.createSubscription(storedSubscription(`sub_${n}`, { channel: 'email', target: `person${n}@example.test` }, startMs - 1000));
    }
    await pollNews(archive.store, [rawIncident({ id: 7200, title: 'Messages fail to send' })], startMs);
    other = openSqliteArchive(archive.path);
    // Each mail accepted moves the clock 150 ms: the 12 move it up to 1,800 ms, three leases.
    const first = await mailDeliverer(archive.store, 'first', testClock, smtp.url);
    second = await mailDeliverer(createSqliteStore(other.connection), 'second', testClock, smtp.url);

    const round = await first.deliverDue();
    secondClaimed += (await second.deliverDue()).claimed;

    const recipients = smtp.received.map((mail) => (mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : undefined));
    expect(recipients).toHaveLength(SUBSCRIBERS);
    expect(new Set(recipients).size).toBe(SUBSCRIBERS);
    expect([round.done, secondClaimed]).toEqual([SUBSCRIBERS, 0]);
    expect(await archive.store.deliveryCounts(testClock.now())).toMatchObject({ pending: 0, done: SUBSCRIBERS, dead: 0 });
  });
});
