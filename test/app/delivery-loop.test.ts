/**
 * The delivery loop while its own database is full: a real SQLite file capped with max_page_count,
 * the real deliverer sending to a real webhook receiver on loopback. It says so once, backs off,
 * and delivers everything once space returns.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import { createDeliverer } from '../../src/app/deliverer.ts';
import { startDeliveryLoop, type DeliveryLoop } from '../../src/app/delivery-loop.ts';
import { applyAsPoller, benchSecrets, newsPoll, openSubscribedArchive } from '../bench/notifications-world.ts';
import { fillDisk } from '../helpers/full-disk.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** Enough that claiming a batch grows rows past the room left in their pages. */
const SUBSCRIBERS = 300;
const FULL_FOR_MS = 4_000;

type LogLine = { level: string; msg: string; [field: string]: unknown };

describe('delivery loop on a full disk', () => {
  let receiver: WebhookReceiver;
  let archive: TempArchive;
  let loop: DeliveryLoop | null = null;
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
    const deliverer = createDeliverer({
      store: archive.store,
      sender: createChannelSender({ store: archive.store, webhooks, mailer: null, secrets: secrets.box, clock, publicUrl: 'http://status.test', sanitizeHtml: sanitizeNoteHtml }),
      mailer: null,
      clock,
      logger,
      publicUrl: 'http://status.test',
      instanceId: `test:${process.pid}:full-disk`,
      isHolderGone: () => false,
    });
    // The loop starts on a disk that is already full.
    freeSpace = fillDisk(archive.sqlite);
    loop = startDeliveryLoop({ deliverer, store: archive.store, clock, logger });
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
