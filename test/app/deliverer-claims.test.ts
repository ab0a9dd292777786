/**
 * Two deliverers share one SQLite archive (two processes, or a process and a Worker) and the
 * receiver answers slowly: a claim's deliveries still waiting their turn when its lease would run
 * out must not be claimed and sent again by the other deliverer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { Deliverer } from '../../src/app/deliverer.ts';
import type { Store } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import { generateWebhookSecret } from '../../src/core/webhook-signing.ts';
import { openSqliteArchive } from '../../src/entry/open-sqlite.ts';
import { pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { webhookDeliverer } from './webhook-deliverer.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const LEASE_MS = 600;
const ANSWER_DELAY_MS = 150;
const SEND_TIMEOUT_MS = 250;
const SUBSCRIBERS = 12;

const clock = { now: () => Date.now() };

function deliverer(store: Store, box: SecretBox, name: string, options: { concurrency?: number; maxRenewalsPerRound?: number } = {}): Deliverer {
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

  /** SUBSCRIBERS webhook subscriptions to a receiver that answers slowly, and one incident for them all. */
  async function slowWorld(): Promise<{ archive: TempArchive; receiver: WebhookReceiver; box: SecretBox }> {
    receiver = await startWebhookReceiver({ answerDelayMs: () => ANSWER_DELAY_MS });
    archive = openTempArchive();
    const box = await createSecretBox(generateSecretKey());
    const sealed = await box.seal(generateWebhookSecret());
    const now = clock.now();
    for (let n = 0; n < SUBSCRIBERS; n++) {
      await archive.store.createSubscription(storedSubscription(`sub_${n}`, { target: receiver.url, secretSealed: sealed }, now - 1000));
    }
    await pollNews(archive.store, [rawIncident({ id: 7100, title: 'Messages fail to send' })], now);
    return { archive, receiver, box };
  }

  it('sends each delivery once though a claim takes longer to send than its lease', async () => {
    const { archive, receiver, box } = await slowWorld();
    other = openSqliteArchive(archive.path);

    // The first claims all 12; two at a time at 150 ms each they take about 900 ms, past its
    // 600 ms lease. The second keeps looking in the meantime, as another process would.
    const first = deliverer(archive.store, box, 'first');
    const second = deliverer(createSqliteStore(other.connection), box, 'second');
    const firstRound = first.deliverDue();
    let firstDone = false;
    void firstRound.finally(() => (firstDone = true));
    let secondClaimed = 0;
    while (!firstDone) {
      secondClaimed += (await second.deliverDue()).claimed;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const round = await firstRound;
    secondClaimed += (await second.deliverDue()).claimed;

    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(SUBSCRIBERS);
    expect(new Set(ids).size).toBe(SUBSCRIBERS);
    expect(round.done + secondClaimed).toBe(SUBSCRIBERS);
    expect(await archive.store.deliveryCounts(clock.now())).toMatchObject({ pending: 0, done: SUBSCRIBERS, dead: 0 });
  });

  it('leaves what its renewal budget cannot cover for a later round, and sends nothing twice', async () => {
    const { archive, receiver, box } = await slowWorld();
    // One at a time at 150 ms each the 12 take about 1.8 s: past the first lease and one renewal's.
    const bounded = deliverer(archive.store, box, 'bounded', { concurrency: 1, maxRenewalsPerRound: 1 });
    const first = await bounded.deliverDue();
    expect(first.done).toBeGreaterThan(0);
    expect(first.done).toBeLessThan(SUBSCRIBERS);
    expect(receiver.received).toHaveLength(first.done);
    expect(await archive.store.deliveryCounts(clock.now())).toMatchObject({ pending: SUBSCRIBERS - first.done });

    // Their claims run out; the next round sends them.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    const next = await deliverer(archive.store, box, 'next').deliverDue();
    expect(next.done).toBe(SUBSCRIBERS - first.done);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(SUBSCRIBERS);
    expect(ids).toHaveLength(SUBSCRIBERS);
  });
});
