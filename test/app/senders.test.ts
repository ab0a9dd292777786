/**
 * One sender per channel, each taking the subscription, the events, one delivery key and a mode:
 * a webhook's id comes from the delivery key alone (the same on every attempt), a test send is
 * marked as one, and every channel answers with one of five outcomes. Real parts: a webhook
 * receiver on loopback and a real SMTP server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { nodeHashes } from '../../src/adapters/node-hashes.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { createSenders } from '../../src/app/senders/index.ts';
import type { Sender, Senders } from '../../src/app/senders/sender.ts';
import { webhookMessageId } from '../../src/core/fanout.ts';
import type { Mailer, WebhookSender } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import { generateWebhookSecret, verifyWebhookSignature } from '../../src/core/webhook-signing.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { CHANNELS } from '../../src/core/subscription.ts';
import { pollEvents, rawIncident } from '../fixtures/vendor-builders.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PUBLIC_URL = 'https://status.example.test';

describe('senders', () => {
  let receiver: WebhookReceiver;
  let smtp: TestSmtp;
  let webhooks: WebhookSender;
  let mailer: Mailer;
  let secrets: SecretBox;
  let senders: Senders;
  let archive: TempArchive;
  beforeEach(async () => {
    archive = openTempArchive();
    receiver = await startWebhookReceiver();
    smtp = await startSmtp();
    webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });
    mailer = createSmtpMailer({ smtpUrl: smtp.url, from: 'status@example.test' });
    secrets = await createSecretBox(generateSecretKey());
    senders = createSenders({
      store: archive.store,
      webhooks,
      mailer,
      secrets,
      // As the Node runtime builds it: Node's own hashes, which must give Web Crypto's ids and signatures.
      hashes: nodeHashes,
      clock: { now: Date.now },
      publicUrl: PUBLIC_URL,
      sanitizeHtml: (html) => html,
      linkFor: async (id, purpose) => `${PUBLIC_URL}/${purpose}?subscription=${id}`,
      app: null,
      groupMail: null,
      adminEmail: 'admin@example.test',
      pagerdutyEventsUrl: 'https://events.pagerduty.example.test/v2/enqueue',
      opsgenieApiUrl: null,
      incidentStatusNow: async () => null,
    });
  });
  afterEach(async () => {
    mailer.close();
    await webhooks.close();
    await receiver.close();
    await smtp.close();
    archive.remove();
  });

  const events = pollEvents([rawIncident()]);

  async function webhookSubscription(secret = generateWebhookSecret()) {
    return storedSubscription('sub_hook', { channel: 'webhook', target: receiver.url, secretSealed: await secrets.seal(secret) });
  }

  it('signs a webhook so that a Standard Webhooks receiver holding the secret accepts it', async () => {
    const secret = generateWebhookSecret();
    const subscription = await webhookSubscription(secret);
    expect(await senders.webhook({ subscription, events: events.slice(0, 1), deliveryKey: 'delivery_1', mode: 'live' })).toMatchObject({ kind: 'sent' });
    const [got] = receiver.received;
    const header = (name: string) => String(got!.headers[name]);
    const check = { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature'), body: got!.body };
    expect(await verifyWebhookSignature({ ...check, secret, nowSeconds: Math.floor(Date.now() / 1000) })).toBe(true);
    expect(await verifyWebhookSignature({ ...check, secret: generateWebhookSecret(), nowSeconds: Math.floor(Date.now() / 1000) })).toBe(false);
  });

  it('sends a live webhook under the id its delivery key gives, the same on every attempt', async () => {
    const subscription = await webhookSubscription();
    const send = { subscription, events: events.slice(0, 1), deliveryKey: 'delivery_1', mode: 'live' as const };
    expect(await senders.webhook(send)).toMatchObject({ kind: 'sent', status: 200 });
    receiver.answerNext({ status: 503, headers: { 'retry-after': '60' } });
    expect(await senders.webhook(send)).toMatchObject({ kind: 'retry', retryAfterMs: 60_000, status: 503, error: 'HTTP 503' });
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([await webhookMessageId('delivery_1'), await webhookMessageId('delivery_1')]);
  });

  it('marks a test webhook as one, under a new id for every test', async () => {
    const subscription = await webhookSubscription();
    await senders.webhook({ subscription, events: events.slice(0, 1), deliveryKey: 'test.1', mode: 'test' });
    await senders.webhook({ subscription, events: events.slice(0, 1), deliveryKey: 'test.2', mode: 'test' });
    const [first, second] = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(first).toMatch(/^msg_test_/);
    expect(second).toMatch(/^msg_test_/);
    expect(first).not.toBe(second);
  });

  it('says a 410 is gone, with why the subscription pauses', async () => {
    receiver.answerNext({ status: 410 });
    expect(await senders.webhook({ subscription: await webhookSubscription(), events, deliveryKey: 'd', mode: 'live' })).toEqual({
      kind: 'gone',
      error: 'HTTP 410',
      reason: 'the receiver answered 410 Gone',
      status: 410,
      excerpt: '',
    });
  });

  it("marks a test mail's subject, and mails a group's test to the admin alone", async () => {
    const person = storedSubscription('sub_mail', { channel: 'email', target: 'reader@example.test' });
    expect(await senders.email({ subscription: person, events, deliveryKey: 'test.1', mode: 'test' })).toMatchObject({ kind: 'sent', status: 250 });
    const group = storedSubscription('sub_group', { channel: 'email', target: 'scim-group:g1' });
    expect(await senders.email({ subscription: group, events, deliveryKey: 'test.2', mode: 'test' })).toMatchObject({ kind: 'sent' });
    expect(smtp.received.map((m) => [m.subject?.startsWith('[Test] '), m.to && !Array.isArray(m.to) ? m.to.text : ''])).toEqual([
      [true, 'reader@example.test'],
      [true, 'admin@example.test'],
    ]);
    // Live, a group's mail is the group's, never the admin's: without group mail wired it waits.
    expect(await senders.email({ subscription: group, events, deliveryKey: 'd', mode: 'live' })).toMatchObject({ kind: 'retry' });
    expect(smtp.received).toHaveLength(2);
  });

  it('refuses a delivery with nothing to say, on every channel but the webhook', async () => {
    const backfill = pollEvents([rawIncident()], [], true);
    for (const channel of ['email', 'channel', 'app'] as const) {
      const subscription = storedSubscription(`sub_${channel}`, { channel, target: channel === 'email' ? 'r@example.test' : receiver.url });
      expect(await senders[channel]({ subscription, events: backfill, deliveryKey: 'd', mode: 'live' })).toMatchObject({ kind: 'refused' });
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('has a sender for every channel: one left out does not compile', () => {
    // The compile-time half (`npm run typecheck`): a record without the app channel is refused.
    const send: Sender = async () => ({ kind: 'sent', status: 200, excerpt: '' });
    // @ts-expect-error the app channel has no sender
    const partial: Senders = { webhook: send, email: send, channel: send };
    void partial;
    // The run-time half: the record the service builds has a function for each channel, no more.
    expect(Object.keys(senders).sort()).toEqual([...CHANNELS].sort());
    for (const channel of CHANNELS) expect(typeof senders[channel]).toBe('function');
  });
});
