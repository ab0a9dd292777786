/**
 * A fan-out to receivers that take their time to answer, as receivers across the internet do: the
 * service keeps 64 deliveries in flight, so a thousand subscribers hear of an incident in
 * seconds, not a minute, and no more than 64, which is all a kill can make it send again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const SUBSCRIBERS = 100;
/** Long enough that every send of a wave has gone out before the first answer comes back. */
const ANSWER_DELAY_MS = 1_000;

describe('a fan-out to slow receivers', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let service: TestService;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver({ answerDelayMs: () => ANSWER_DELAY_MS });
    service = await startTestService(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await vendor?.close();
  });

  it('keeps 64 deliveries in flight at once, and never more', { timeout: 30_000 }, async () => {
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded' })]);
    expect((await service.poll()).outcome).toBe('ok'); // seeds: history, not news
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const created = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${receiver.url}/${i}` });
      expect(created.status).toBe(201);
    }
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded' }), rawIncident({ id: 2, title: 'Calls drop after a minute' })]);
    expect((await service.poll()).outcome).toBe('ok');
    await service.deliverNow();

    const received = await receiver.waitFor(SUBSCRIBERS);
    expect(received).toHaveLength(SUBSCRIBERS);
    expect(new Set(received.map((r) => r.path)).size).toBe(SUBSCRIBERS);
    expect(Math.max(...received.map((r) => r.inFlight))).toBe(64);
  });
});
