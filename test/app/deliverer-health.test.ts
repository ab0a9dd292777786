/**
 * What a subscription's health says after real deliveries: its last success is written at most
 * once a minute while it stays healthy, so the time shown is a success at most a minute before
 * the latest; a failure is never left standing by a success that followed it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LAST_SUCCESS_STEP_MS } from '../../src/core/delivery-outcome.ts';
import type { SecretBox } from '../../src/core/secret-box.ts';
import { pollNews } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { webhookDeliverer, webhookSubscriptions } from './webhook-deliverer.ts';

const clock = { now: () => Date.now() };
const SUBSCRIPTION = 'sub_health';

describe("a subscription's health after its deliveries", () => {
  let archive: TempArchive | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    archive?.remove();
    await receiver?.close();
  });

  let incidents = 0;
  async function news(count: number): Promise<void> {
    const raws = Array.from({ length: count }, () => {
      incidents++;
      return rawIncident({ id: 7300 + incidents, title: `Messages fail to send ${incidents}` });
    });
    // One poll per incident: each its own event, so each its own delivery, in order.
    for (const raw of raws) await pollNews(archive!.store, [raw], clock.now());
  }

  async function world(): Promise<{ archive: TempArchive; receiver: WebhookReceiver; box: SecretBox }> {
    receiver = await startWebhookReceiver();
    archive = openTempArchive();
    const box = await webhookSubscriptions(archive.store, receiver.url, [SUBSCRIPTION], clock.now());
    return { archive, receiver, box };
  }

  it('shows a success at most a minute before the latest', async () => {
    const { archive, receiver, box } = await world();
    const deliverer = webhookDeliverer(archive.store, box, { instanceId: 'test:health', sendTimeoutMs: 5_000 });
    await news(1);
    expect((await deliverer.deliverDue()).done).toBe(1);
    const first = (await archive.store.getSubscription(SUBSCRIPTION))!;
    expect(first.lastSuccessAt).not.toBeNull();
    expect(first.lastSuccessAt).toBeGreaterThanOrEqual(receiver.received[0]!.receivedAt - 1_000);

    await news(2);
    expect((await deliverer.deliverDue()).done).toBe(2);
    const after = (await archive.store.getSubscription(SUBSCRIPTION))!;
    const latest = Math.max(...receiver.received.map((r) => r.receivedAt));
    expect(after.failingSince).toBeNull();
    expect(after.lastSuccessAt).not.toBeNull();
    // The shown time was a success, and the latest is at least as late, within the minute.
    expect(after.lastSuccessAt).toBeLessThanOrEqual(latest + 1_000);
    expect(latest - after.lastSuccessAt!).toBeLessThan(LAST_SUCCESS_STEP_MS);
  });

  it('clears a failure that a later success in the same round followed', async () => {
    const { archive, receiver, box } = await world();
    const deliverer = webhookDeliverer(archive.store, box, { instanceId: 'test:health-flip', sendTimeoutMs: 5_000 });
    await news(1);
    expect((await deliverer.deliverDue()).done).toBe(1);

    // Three deliveries in one claim: a success, a failure (retried later), a success. The claim
    // read the subscription healthy with a recent success; the failure in between must not stay.
    await news(3);
    receiver.answerNext({ status: 200 }, { status: 500 }, { status: 200 });
    const round = await deliverer.deliverDue();
    expect(round).toMatchObject({ claimed: 3, done: 2, retried: 1 });
    const after = (await archive.store.getSubscription(SUBSCRIPTION))!;
    expect(after.failingSince).toBeNull();
    expect(after.lastSuccessAt).toBeGreaterThanOrEqual(receiver.received.at(-1)!.receivedAt - 1_000);
  });
});
