/**
 * A source's archive purged while a deliverer is sending one of its deliveries (a real SQLite
 * file, a real receiver on loopback): the send that went out keeps its record, the deliverer ends
 * its round as usual, and the purge finishes once the send is recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runPurgeSteps } from '../../src/app/source-purge.ts';
import { createSecretBox, generateSecretKey } from '../../src/core/secret-box.ts';
import { generateWebhookSecret } from '../../src/core/webhook-signing.ts';
import { pollNews, storedSubscription } from '../fixtures/notification-builders.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { webhookDeliverer } from './webhook-deliverer.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** The receiver's answer comes this late: the purge runs while the send waits for it. */
const ANSWER_DELAY_MS = 400;
const SOURCE_ID = 'src_acme';

const clock = { now: () => Date.now() };

describe('a purge while a delivery of the source is being sent', () => {
  let archive: TempArchive | undefined;
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    archive?.remove();
    await receiver?.close();
  });

  it('keeps the record of the send that went out, and the purge ends once it is recorded', async () => {
    receiver = await startWebhookReceiver({ answerDelayMs: () => ANSWER_DELAY_MS });
    archive = openTempArchive();
    const { store } = archive;
    const box = await createSecretBox(generateSecretKey());
    const now = clock.now();
    await store.addSource({ id: SOURCE_ID, kind: 'statuspage', name: 'Acme Cloud', url: 'https://status.acme.test', createdAt: now - 2000 }, 10);
    await store.createSubscription(
      storedSubscription(
        'sub_hook',
        { target: receiver.url, secretSealed: await box.seal(generateWebhookSecret()), filters: { sources: [SOURCE_ID] } },
        now - 1000,
      ),
    );
    await pollNews(store, [rawIncident({ id: 7200, title: 'API errors' })], now, { source: SOURCE_ID });
    const [pending] = await store.listDeliveries({ state: 'pending' }, null, 10);
    expect(pending).toBeDefined();

    const deliverer = webhookDeliverer(store, box, { instanceId: 'test:deliverer', sendTimeoutMs: 5000 });
    const round = deliverer.deliverDue();
    await receiver.waitFor(1);

    // The send is out, its answer not back yet: the admin purges the source.
    expect(await store.beginSourcePurge(SOURCE_ID, clock.now())).toBe(true);
    expect((await runPurgeSteps(store, SOURCE_ID, { maxSteps: 10, nowMs: clock.now() })).done).toBe(false);
    expect(await store.sourceArchiveLeft(SOURCE_ID, 100)).toEqual({ incidents: 0, events: 0 });

    expect(await round).toEqual({ claimed: 1, done: 1, retried: 0, dead: 0 });
    const recorded = await store.getDelivery(pending!.id);
    expect(recorded?.delivery).toMatchObject({ state: 'done', attempts: 1 });
    expect(recorded?.attempts.map((a) => [a.ok, a.status])).toEqual([[true, 200]]);

    expect((await runPurgeSteps(store, SOURCE_ID, { maxSteps: 10, nowMs: clock.now() })).done).toBe(true);
    expect((await store.getDelivery(pending!.id))?.delivery.state).toBe('done');
    expect(await store.purgingSources()).toEqual([]);
    expect(receiver.received).toHaveLength(1);
  });
});
