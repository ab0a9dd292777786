/**
 * "Deliver what is due now" as a runtime calls it: one round over a real SQLite file, the real
 * deliverer sending to a real webhook receiver on loopback, and what the round says about when the
 * next one is due (the earliest retry, nothing, or the backoff after a store failure).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { createDueDeliveries, type DueDeliveries } from '../../src/app/due-deliveries.ts';
import { applyAsPoller, benchSecrets, newsPoll, openSubscribedArchive, webhookDeliverer } from '../bench/notifications-world.ts';
import { fillDisk } from '../helpers/full-disk.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type LogLine = { level: string; msg: string; [field: string]: unknown };

/** The first retry of the published schedule (README: 5 s, 5 min, 30 min, ...), with jitter at its midpoint. */
const FIRST_RETRY_MS = 5_000;
/** The store-failure backoff the README promises: 1 s, doubling. */
const FIRST_BACKOFF_MS = 1_000;

describe('deliver what is due now', () => {
  let receiver: WebhookReceiver | null = null;
  let archive: TempArchive | null = null;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });
  let logs: LogLine[] = [];

  async function world(subscribers: number): Promise<{ due: DueDeliveries; archive: TempArchive; receiver: WebhookReceiver }> {
    receiver = await startWebhookReceiver();
    const secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-due-', subscribers, receiver.url, secrets.sealed);
    logs = [];
    const clock = { now: () => Date.now() };
    const logger = createConsoleLogger({ level: 'info', format: 'json', write: (line) => logs.push(JSON.parse(line) as LogLine) });
    // The middle of the jitter range: a retry lands exactly on its scheduled delay.
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger, name: 'due', random: () => 0.5 });
    return { due: createDueDeliveries({ deliverer, store: archive.store, clock, logger }), archive, receiver };
  }

  afterEach(async () => {
    await receiver?.close();
    archive?.remove();
    receiver = null;
    archive = null;
  });
  afterAll(() => webhooks.close());

  it('sends what is due and says when the earliest retry is', async () => {
    const { due, archive, receiver } = await world(3);
    await applyAsPoller(archive.store, newsPoll(1).input);
    receiver.answerNext({ status: 200 }, { status: 503 }, { status: 200 });
    const before = Date.now();
    const result = await due.deliverDue();
    const after = Date.now();
    expect(receiver.received).toHaveLength(3);
    expect(result).toMatchObject({ kind: 'sent', sent: { claimed: 3, done: 2, retried: 1, dead: 0 } });
    expect(result.nextDueAt).toBeGreaterThanOrEqual(before + FIRST_RETRY_MS);
    expect(result.nextDueAt).toBeLessThanOrEqual(after + FIRST_RETRY_MS);
  });

  it('says nothing is due once everything went out, and sends nothing twice', async () => {
    const { due, archive, receiver } = await world(2);
    await applyAsPoller(archive.store, newsPoll(1).input);
    expect(await due.deliverDue()).toEqual({ kind: 'sent', sent: { claimed: 2, done: 2, retried: 0, dead: 0 }, nextDueAt: null });
    expect(await due.deliverDue()).toEqual({ kind: 'sent', sent: { claimed: 0, done: 0, retried: 0, dead: 0 }, nextDueAt: null });
    expect(receiver.received).toHaveLength(2);
  });

  it("does not count a paused subscription's waiting delivery as due: a runtime would wake for nothing", async () => {
    const { due, archive, receiver } = await world(2);
    await applyAsPoller(archive.store, newsPoll(1).input);
    // Paused after the news was written for it: its delivery waits for a resume (which signals).
    await archive.store.updateSubscription('sub_bench000000', { status: 'paused', pausedReason: 'paused by an admin' }, Date.now());
    expect(await due.deliverDue()).toEqual({ kind: 'sent', sent: { claimed: 1, done: 1, retried: 0, dead: 0 }, nextDueAt: null });
    expect(receiver.received).toHaveLength(1);
  });

  it('on a full disk says when to try again, backing off 1 s, 2 s, 4 s, with one log line; then sends it all', async () => {
    // Enough that claiming a batch grows rows past the room left in their pages.
    const subscribers = 300;
    const { due, archive, receiver } = await world(subscribers);
    await applyAsPoller(archive.store, newsPoll(1).input);
    const freeSpace = fillDisk(archive.sqlite);
    for (const factor of [1, 2, 4]) {
      const before = Date.now();
      const result = await due.deliverDue();
      const after = Date.now();
      expect(result.kind).toBe('store_failed');
      expect(result.nextDueAt).toBeGreaterThanOrEqual(before + factor * FIRST_BACKOFF_MS);
      expect(result.nextDueAt).toBeLessThanOrEqual(after + factor * FIRST_BACKOFF_MS);
    }
    expect(logs.map((l) => [l.level, l.msg])).toEqual([['error', 'delivery paused: disk full']]);

    freeSpace();
    const result = await due.deliverDue();
    expect(result).toMatchObject({ kind: 'sent', sent: { claimed: subscribers, done: subscribers }, nextDueAt: null });
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(subscribers);
    expect(logs.at(-1)).toMatchObject({ level: 'info', msg: 'delivery resumed', after: 'disk full', failures: 3 });
  });
});
