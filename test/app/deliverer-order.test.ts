/**
 * A subscription's next delivery goes out only once the last one's attempt is on record: its
 * outcome and the subscription's health decide what follows. The archive's commits are made slow
 * here, as a remote database's round trips are (D1 from a Worker): the store is the real SQLite
 * one, each recordAttempts answering only after the delay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/core/ports.ts';
import type { SecretBox } from '../../src/core/secret-box.ts';
import { pollNews } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { webhookDeliverer, webhookSubscriptions } from './webhook-deliverer.ts';

const COMMIT_DELAY_MS = 300;
const CONCURRENCY = 4;

const clock = { now: () => Date.now() };

/** The store, its attempts recorded COMMIT_DELAY_MS late; `committedAt` says when each list was. */
function slowCommits(store: Store): { store: Store; committedAt: number[] } {
  const committedAt: number[] = [];
  const slow: Store = {
    ...store,
    async recordAttempts(holder, attempts) {
      await new Promise((resolve) => setTimeout(resolve, COMMIT_DELAY_MS));
      const recorded = await store.recordAttempts(holder, attempts);
      for (const _ of attempts) committedAt.push(clock.now());
      return recorded;
    },
  };
  return { store: slow, committedAt };
}

describe('a deliverer whose commits are slow', () => {
  let archive: TempArchive | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    archive?.remove();
    await receiver?.close();
  });

  async function world(subscribers: number, incidents: number): Promise<{ archive: TempArchive; receiver: WebhookReceiver; box: SecretBox }> {
    receiver = await startWebhookReceiver();
    archive = openTempArchive();
    const now = clock.now();
    const box = await webhookSubscriptions(
      archive.store,
      receiver.url,
      Array.from({ length: subscribers }, (_, n) => `sub_${n}`),
      now,
    );
    for (let i = 0; i < incidents; i++) await pollNews(archive.store, [rawIncident({ id: 7200 + i, title: `Messages fail to send ${i}` })], now);
    return { archive, receiver, box };
  }

  it("sends a subscription's next delivery only once the last one's attempt is on record", async () => {
    // One subscriber, three events: three deliveries that must reach it in order, each after the
    // one before it is recorded (its outcome and the subscription's health decide what follows).
    const { archive, receiver, box } = await world(1, 3);
    const { store, committedAt } = slowCommits(archive.store);
    const deliverer = webhookDeliverer(store, box, { instanceId: 'test:in-order', sendTimeoutMs: 5_000, concurrency: CONCURRENCY });

    const round = await deliverer.deliverDue();

    expect(round).toMatchObject({ claimed: 3, done: 3 });
    const arrivals = receiver.received.map((r) => r.receivedAt);
    expect(arrivals).toHaveLength(3);
    expect(committedAt).toHaveLength(3);
    expect(arrivals[1]).toBeGreaterThanOrEqual(committedAt[0]!);
    expect(arrivals[2]).toBeGreaterThanOrEqual(committedAt[1]!);
    const titles = receiver.received.map((r) => (JSON.parse(r.body) as { data: { incident: { title: string } } }).data.incident.title);
    expect(titles).toEqual(['Messages fail to send 0', 'Messages fail to send 1', 'Messages fail to send 2']);
  });
});
