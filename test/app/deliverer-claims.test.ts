/**
 * Two deliverers share one SQLite archive (two processes, or a process and a Worker) and the
 * receiver answers slowly: a claim's deliveries still waiting their turn when its lease would run
 * out must not be claimed and sent again by the other deliverer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { Deliverer } from '../../src/app/deliverer.ts';
import type { Clock, Store } from '../../src/core/ports.ts';
import type { SecretBox } from '../../src/core/secret-box.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { pollNews } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { webhookDeliverer, webhookSubscriptions } from './webhook-deliverer.ts';
import { startWebhookReceiver, type WebhookReceiver, type WebhookReceiverOptions } from '../helpers/webhook-receiver.ts';

const LEASE_MS = 600;
const ANSWER_DELAY_MS = 150;
const SEND_TIMEOUT_MS = 250;
const SUBSCRIBERS = 12;

const clock = { now: () => Date.now() };

function deliverer(
  store: Store,
  box: SecretBox,
  name: string,
  options: { concurrency?: number; maxRenewalsPerRound?: number; clock?: Clock; sendTimeoutMs?: number } = {},
): Deliverer {
  return webhookDeliverer(store, box, {
    instanceId: `test:${name}`,
    sendTimeoutMs: SEND_TIMEOUT_MS,
    claimLeaseMs: LEASE_MS,
    concurrency: options.concurrency ?? 2,
    ...options,
  });
}

describe('deliverers sharing an archive, with a slow receiver', () => {
  let archive: TempArchive | undefined;
  let other: ReturnType<typeof openSqliteArchive> | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    other?.close();
    archive?.remove();
    await receiver?.close();
  });

  /** SUBSCRIBERS webhook subscriptions to a receiver, and one incident for them all. */
  async function slowWorld(
    options: { now?: number; beforeAnswer?: WebhookReceiverOptions['beforeAnswer'] } = {},
  ): Promise<{ archive: TempArchive; receiver: WebhookReceiver; box: SecretBox }> {
    receiver = await startWebhookReceiver(options.beforeAnswer ? { beforeAnswer: options.beforeAnswer } : { answerDelayMs: () => ANSWER_DELAY_MS });
    archive = openTempArchive();
    const now = options.now ?? clock.now();
    const box = await webhookSubscriptions(
      archive.store,
      receiver.url,
      Array.from({ length: SUBSCRIBERS }, (_, n) => `sub_${n}`),
      now,
    );
    await pollNews(archive.store, [rawIncident({ id: 7100, title: 'Messages fail to send' })], now);
    return { archive, receiver, box };
  }

  it('sends each delivery once though a claim takes longer to send than its lease', async () => {
    // Time is the test's: each answer takes ANSWER_DELAY_MS of it, and while a send of the first
    // deliverer waits for its answer, the second looks for due deliveries, as another process
    // would. The HTTP time limit (real time) is far off, so only the lease decides.
    const startMs = Date.UTC(2026, 10, 27, 12);
    const testClock = { ms: startMs, now: () => testClock.ms };
    let second: Deliverer | undefined;
    let secondLooking = false;
    let secondClaimed = 0;
    const secondLooks = async () => {
      // The second's own sends (a deliverer that sent past its claim) are answered at once.
      if (secondLooking || !second) return;
      secondLooking = true;
      try {
        testClock.ms += ANSWER_DELAY_MS;
        secondClaimed += (await second.deliverDue()).claimed;
      } finally {
        secondLooking = false;
      }
    };
    const { archive, receiver, box } = await slowWorld({ now: startMs, beforeAnswer: secondLooks });
    other = openSqliteArchive(archive.path);
    // One at a time at 150 ms each, the 12 take 1,800 ms: three times the 600 ms lease.
    const options = { clock: testClock, sendTimeoutMs: 30_000, concurrency: 1 };
    const first = deliverer(archive.store, box, 'first', options);
    second = deliverer(createSqliteStore(other.connection), box, 'second', options);

    const round = await first.deliverDue();
    secondClaimed += (await second.deliverDue()).claimed;

    expect(testClock.ms - startMs).toBe(SUBSCRIBERS * ANSWER_DELAY_MS);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(SUBSCRIBERS);
    expect(new Set(ids).size).toBe(SUBSCRIBERS);
    expect([round.done, secondClaimed]).toEqual([SUBSCRIBERS, 0]);
    expect(await archive.store.deliveryCounts(testClock.now())).toMatchObject({ pending: 0, done: SUBSCRIBERS, dead: 0 });
  });

  it('leaves what its renewal budget cannot cover for a later round, and sends nothing twice', async () => {
    // Time is the test's: each answer takes ANSWER_DELAY_MS of it, so a loaded machine cannot
    // move the lease's end; the HTTP time limit (real time) is far off.
    const startMs = Date.UTC(2026, 10, 27, 12);
    const testClock = { ms: startMs, now: () => testClock.ms };
    const { archive, receiver, box } = await slowWorld({
      now: startMs,
      beforeAnswer: async () => {
        testClock.ms += ANSWER_DELAY_MS;
      },
    });
    // One at a time at 150 ms each the 12 take 1,800 ms: past the first lease and one renewal's.
    const options = { clock: testClock, sendTimeoutMs: 30_000, concurrency: 1 };
    const bounded = deliverer(archive.store, box, 'bounded', { ...options, maxRenewalsPerRound: 1 });
    const first = await bounded.deliverDue();
    expect(first.done).toBeGreaterThan(0);
    expect(first.done).toBeLessThan(SUBSCRIBERS);
    expect(receiver.received).toHaveLength(first.done);
    expect(await archive.store.deliveryCounts(testClock.now())).toMatchObject({ pending: SUBSCRIBERS - first.done });

    // Their claims run out; the next round sends them.
    testClock.ms += LEASE_MS;
    const next = await deliverer(archive.store, box, 'next', options).deliverDue();
    expect(next.done).toBe(SUBSCRIBERS - first.done);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(SUBSCRIBERS);
    expect(ids).toHaveLength(SUBSCRIBERS);
  });
});
