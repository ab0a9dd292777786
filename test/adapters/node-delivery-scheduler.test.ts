/**
 * Node's delivery scheduler around the real deliverer, a real SQLite file and a real webhook
 * receiver on loopback. While its database is full (capped with max_page_count) it says so once,
 * backs off, and delivers everything once space returns; a signal starts a round at once; work
 * written without a signal (by another process) is found by the idle check.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { createDueDeliveries } from '../../src/app/due-deliveries.ts';
import { startNodeDeliveryScheduler, type NodeDeliveryScheduler } from '../../src/adapters/node-delivery-scheduler.ts';
import { applyAsPoller, benchSecrets, type BenchSecrets, newsPoll, openSubscribedArchive, webhookDeliverer } from '../bench/notifications-world.ts';
import { fillDisk } from '../helpers/full-disk.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** Enough that claiming a batch grows rows past the room left in their pages. */
const SUBSCRIBERS = 300;
const FULL_FOR_MS = 4_000;

type LogLine = { level: string; msg: string; [field: string]: unknown };

describe('node delivery scheduler on a full disk', () => {
  let receiver: WebhookReceiver;
  let archive: TempArchive;
  let loop: NodeDeliveryScheduler | null = null;
  let freeSpace: () => void = () => {};
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });
  const logs: LogLine[] = [];

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    const secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-full-disk-', SUBSCRIBERS, receiver.url, secrets.sealed);
    await applyAsPoller(archive.store, newsPoll(1).input);
    const clock = { now: () => Date.now() };
    const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(JSON.parse(line) as LogLine) });
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger, name: 'full-disk' });
    // The scheduler starts on a disk that is already full.
    freeSpace = fillDisk(archive.sqlite);
    loop = startNodeDeliveryScheduler({ due: createDueDeliveries({ deliverer, store: archive.store, clock, logger }), clock });
  });
  afterEach(async () => {
    await loop?.stop();
    await webhooks.close();
    await receiver.close();
    archive.remove();
  });

  it('logs one line, not nine a second, backs off, and delivers everything when space returns', async () => {
    await new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS));
    const whileFull = logs.filter((l) => l.level !== 'debug');
    expect(whileFull.map((l) => [l.level, l.msg])).toEqual([['error', 'delivery paused: disk full']]);
    expect(JSON.stringify(whileFull)).not.toMatch(/\\n\s+at /);

    freeSpace();
    const received = await receiver.waitFor(SUBSCRIBERS, 20_000);
    await loop!.settled(); // the round that sent them has recorded them
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(SUBSCRIBERS);
    const resumed = logs.find((l) => l.msg === 'delivery resumed');
    expect(resumed).toMatchObject({ level: 'info', after: 'disk full' });
    // Retries 1, 2, 4 s apart: three or so failed rounds in four seconds, where there were ~35.
    expect(resumed!.failures).toBeGreaterThanOrEqual(2);
    expect(resumed!.failures).toBeLessThanOrEqual(4);
  });
});

describe('node delivery scheduler wake-ups', () => {
  const RECIPIENTS = 3;
  let receiver: WebhookReceiver;
  let archive: TempArchive;
  let scheduler: NodeDeliveryScheduler | null = null;
  let secrets: BenchSecrets;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-wakeups-', RECIPIENTS, receiver.url, secrets.sealed);
  });
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = null;
    await receiver.close();
    archive.remove();
  });
  afterAll(() => webhooks.close());

  /** A scheduler that has run its first round and now sleeps until the idle check. */
  async function idleScheduler(idleCheckMs: number): Promise<NodeDeliveryScheduler> {
    const clock = { now: () => Date.now() };
    const logger = createConsoleLogger({ level: 'error', format: 'json', write: () => {} });
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger, name: 'wakeups' });
    const started = startNodeDeliveryScheduler({ due: createDueDeliveries({ deliverer, store: archive.store, clock, logger }), clock, idleCheckMs });
    await started.settled();
    return started;
  }

  it('runs a round at once when told the outbox changed, long before its idle check', async () => {
    scheduler = await idleScheduler(10 * 60_000);
    await applyAsPoller(archive.store, newsPoll(1).input);
    // Unsignalled, the rows wait for the idle check ten minutes away.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(0);
    scheduler.outboxChanged();
    expect(await receiver.waitFor(RECIPIENTS, 10_000)).toHaveLength(RECIPIENTS);
  });

  it('finds deliveries another process wrote, without a signal, at its idle check', async () => {
    scheduler = await idleScheduler(300);
    await applyAsPoller(archive.store, newsPoll(1).input);
    expect(await receiver.waitFor(RECIPIENTS, 10_000)).toHaveLength(RECIPIENTS);
  });
});
