/**
 * The deliverer's claims over a real SQLite file, sending to a real receiver on loopback: a slow
 * receiver at the end of one claim must not hold back the deliveries of the next.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { silentLogger } from '../bench/harness.ts';
import { applyAsPoller, benchSecrets, newsPoll, openSubscribedArchive, webhookDeliverer } from '../bench/notifications-world.ts';
import type { TempArchive } from '../helpers/temp-archive.ts';

/** More than one claim's worth (a claim takes up to 100). */
const SUBSCRIBERS = 130;
/** How long the receiver holds its first answer at most, waiting for every other request. */
const HOLD_MS = 3_000;

type HoldingReceiver = { url: string; heldUntilAll: Promise<boolean>; close(): Promise<void> };

/**
 * Answers 200 at once, except the first request: its answer waits until `expected` requests have
 * arrived in all (true) or HOLD_MS has passed (false).
 */
async function startHoldingReceiver(expected: number): Promise<HoldingReceiver> {
  let arrived = 0;
  let held: ServerResponse | null = null;
  let settle: (allArrived: boolean) => void = () => {};
  const heldUntilAll = new Promise<boolean>((resolve) => (settle = resolve));
  const release = (allArrived: boolean) => {
    settle(allArrived);
    held?.end('ok');
    held = null;
  };
  const timer = setTimeout(() => release(false), HOLD_MS);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived++;
      if (arrived === 1) held = res;
      else res.end('ok');
      if (arrived === expected) {
        clearTimeout(timer);
        release(true);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    heldUntilAll,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the deliverer, claim after claim', () => {
  let archive: TempArchive | null = null;
  let receiver: HoldingReceiver | null = null;
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: 'statuswatch-test' });

  afterEach(async () => {
    await receiver?.close();
    archive?.remove();
    receiver = null;
    archive = null;
  });

  it("sends the next claim's deliveries while one receiver of the last claim is still answering", async () => {
    receiver = await startHoldingReceiver(SUBSCRIBERS);
    const secrets = await benchSecrets();
    archive = await openSubscribedArchive('statuswatch-claims-', SUBSCRIBERS, receiver.url, secrets.sealed);
    await applyAsPoller(archive.store, newsPoll(1).input);
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock: { now: () => Date.now() }, logger: silentLogger, name: 'claims' });

    const round = await deliverer.deliverDue();

    expect(round).toEqual({ claimed: SUBSCRIBERS, done: SUBSCRIBERS, retried: 0, dead: 0 });
    // Every other subscriber's webhook arrived while the first receiver held its answer.
    expect(await receiver.heldUntilAll).toBe(true);
  });
});
