/**
 * Notifications end to end: the simulated vendor drives events, the real service writes the outbox
 * and delivers to a real webhook receiver, a real team-chat endpoint and a real SMTP server, all
 * on loopback; faults (500, 410, Retry-After, SMTP 451 and 550) each end as the README's delivery rules say.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { filesIncidentResolved, rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('notifications', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let receiver: WebhookReceiver;
  let service: TestService;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
    await vendor.close();
  });

  beforeEach(async () => {
    offsetMs = 0;
    smtp.received.length = 0;
    await vendor.setIncidents([]);
    receiver = await startWebhookReceiver();
    service = await startTestService(vendor.url, {
      clock,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'statuswatch <status@example.test>',
        PUBLIC_URL: 'https://status.example.test',
        ADMIN_EMAIL: 'admin@example.test',
      },
    });
    expect((await service.poll()).outcome).toBe('ok'); // seeds the archive: nothing is news yet
  });
  afterEach(async () => {
    await service.close();
    await receiver.close();
  });

  async function subscribeWebhook(filters?: object) {
    const res = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url, ...(filters ? { filters } : {}) });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    return res.body as { subscription: { id: string }; secret: string };
  }

  it('sends a signed webhook per event that Standard Webhooks verifies, and nothing for backfill', async () => {
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded before we subscribed' })]);
    const { secret } = await subscribeWebhook();
    const { active, resolved } = filesIncidentResolved('<p>Uploads work again.</p>');
    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded before we subscribed' }), active]);
    await service.poll();
    await service.deliverNow();
    // Incident 1 arrived after seeding, so it is news too: two incidents created.
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['incident.created', 'incident.created']);

    await vendor.setIncidents([rawIncident({ id: 1, title: 'Seeded before we subscribed' }), resolved]);
    await service.poll();
    await service.deliverNow();
    const verifier = new Webhook(secret);
    const bodies = receiver.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: any });
    expect(
      bodies
        .slice(2)
        .map((b) => b.type)
        .sort(),
    ).toEqual(['incident.note_added', 'incident.status_changed']);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(bodies[2]!.data.incident.id).toBe('1580');
    expect(receiver.received.every((r) => r.body.length < 8 * 1024)).toBe(true);
  });

  it("groups one incident's events of one poll into one email, written in the subscriber's zone", async () => {
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'ops@example.test', timezone: 'America/Los_Angeles' });
    expect(created.status).toBe(201);
    expect(created.body.subscription.status).toBe('active');
    const { active, resolved } = filesIncidentResolved('<p>Uploads work again.<script>alert(1)</script></p>');
    await vendor.setIncidents([active]);
    await service.poll();
    await vendor.setIncidents([resolved]);
    await service.poll();
    await service.deliverNow();
    expect(smtp.received.map((m) => m.subject)).toEqual(['[New incident] Files: Some files fail to upload', '[Resolved] Files: Some files fail to upload']);
    const mail = smtp.received[1]!;
    expect(mail.text).toContain('Uploads work again.');
    expect(mail.html || '').not.toContain('<script');
    expect(mail.text).toMatch(/PDT/);
    const header = (name: string) => mail.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '');
    expect(header('list-unsubscribe')).toMatch(/^<https:\/\/status\.example\.test\/unsubscribe\?token=[\w-]{43}>$/);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('posts one team-chat message per incident and poll', async () => {
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'channel', url: receiver.url, filters: { services: ['Files'] } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeUndefined();
    const { active } = filesIncidentResolved('');
    await vendor.setIncidents([active, rawIncident({ id: 2, services: ['Messaging'] })]);
    await service.poll();
    await service.deliverNow();
    expect(receiver.received).toHaveLength(1); // the Messaging incident does not match the filter
    const message = JSON.parse(receiver.received[0]!.body);
    expect(message.text).toContain('Some files fail to upload');
    expect(JSON.stringify(message.blocks)).toContain('https://status.example.test/incidents/1580');
  });

  it('retries a 500 on the Standard Webhooks schedule with the same webhook-id, then succeeds', async () => {
    const { subscription } = await subscribeWebhook();
    receiver.answerNext({ status: 500, body: 'down for maintenance' });
    await vendor.setIncidents([rawIncident({ id: 3 })]);
    await service.poll();
    await service.deliverNow();
    let list = await service.admin('GET', `/api/deliveries?subscription=${subscription.id}`);
    const [delivery] = list.body.deliveries;
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, last_error: 'HTTP 500' });
    const delayMs = Date.parse(delivery.next_attempt_at) - clock.now();
    expect(delayMs).toBeGreaterThan(3_000); // 5 s ± 20 %
    expect(delayMs).toBeLessThanOrEqual(6_000);

    offsetMs += 6_100;
    await service.deliverNow();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    const detail = await service.admin('GET', `/api/deliveries/${delivery.id}`);
    expect(detail.body.delivery).toMatchObject({ state: 'done', attempts: 2, webhook_id: receiver.received[0]!.headers['webhook-id'] });
    expect(detail.body.delivery.attempt_log.map((a: any) => [a.ok, a.status])).toEqual([
      [false, 500],
      [true, 200],
    ]);
    expect(detail.body.delivery.attempt_log[0].response_excerpt).toBe('down for maintenance');
    list = await service.admin('GET', `/api/subscriptions/${subscription.id}`);
    expect(list.body.subscription.failing_since).toBeNull();

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toContain('statuswatch_delivery_attempts_total{channel="webhook",outcome="retry"} 1');
    expect(metrics).toContain('statuswatch_delivery_attempts_total{channel="webhook",outcome="done"} 1');
    expect(metrics).toContain('statuswatch_deliveries{state="done"} 1');
    expect(metrics).toContain('statuswatch_outbox_due 0');
    expect(metrics).toMatch(/statuswatch_polls_total\{outcome="ok"\} 2/);
    expect(metrics).toMatch(/statuswatch_delivery_latency_seconds_count\{channel="webhook"\} 1/);
  });

  it('honours Retry-After, and a 410 pauses the subscription', async () => {
    const { subscription } = await subscribeWebhook();
    receiver.answerNext({ status: 503, headers: { 'retry-after': '120' } });
    await vendor.setIncidents([rawIncident({ id: 4 })]);
    await service.poll();
    await service.deliverNow();
    const [delivery] = (await service.admin('GET', '/api/deliveries')).body.deliveries;
    expect(Date.parse(delivery.next_attempt_at) - clock.now()).toBeGreaterThan(110_000);

    receiver.answerNext({ status: 410 });
    offsetMs += 121_000;
    await service.deliverNow();
    const sub = (await service.admin('GET', `/api/subscriptions/${subscription.id}`)).body.subscription;
    expect(sub).toMatchObject({ status: 'paused', paused_reason: 'the receiver answered 410 Gone' });
    expect((await service.admin('GET', `/api/deliveries/${delivery.id}`)).body.delivery.state).toBe('dead');
    expect(service.logs.some((l) => l.includes('subscription paused'))).toBe(true);
    // The mail names the subscription as the admin pages do: by the receiver's address.
    const receiverHost = new URL(receiver.url).host;
    const told = smtp.received.find((m) => m.subject?.startsWith('[statuswatch] Subscription paused:'));
    expect(told?.subject).toContain(receiverHost);
    expect(told?.text).toContain(`Subscription: ${receiverHost}`);
    expect(told?.text).toContain('the receiver answered 410 Gone');
    expect(told?.text).toContain(`https://status.example.test/api/subscriptions/${subscription.id}/resume`);

    // Paused: nothing is written for it; resumed and replayed: it goes out again, same id.
    await vendor.setIncidents([rawIncident({ id: 4, status: 'resolved' })]);
    await service.poll();
    expect((await service.admin('GET', '/api/deliveries')).body.deliveries).toHaveLength(1);
    expect((await service.admin('POST', `/api/subscriptions/${subscription.id}/resume`)).status).toBe(200);
    expect((await service.admin('POST', `/api/deliveries/${delivery.id}/replay`)).body.replayed).toBe(1);
    await service.deliverNow();
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received[2]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
  });

  it('retries an SMTP 451 and suppresses an address the server refuses with 550', async () => {
    const good = (await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'rcpt451@example.test' })).body.subscription;
    const bad = (await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'rcpt550@example.test' })).body.subscription;
    await vendor.setIncidents([rawIncident({ id: 5 })]);
    await service.poll();
    await service.deliverNow();
    const deliveries = (await service.admin('GET', '/api/deliveries')).body.deliveries;
    const bySub = Object.fromEntries(deliveries.map((d: any) => [d.subscription_id, d]));
    expect(bySub[good.id]).toMatchObject({ state: 'pending', attempts: 1 });
    expect(bySub[good.id].last_error).toMatch(/451/);
    expect(bySub[bad.id]).toMatchObject({ state: 'dead', attempts: 1 });
    const suppressed = (await service.admin('GET', `/api/subscriptions/${bad.id}`)).body.subscription;
    expect(suppressed.status).toBe('paused');
    expect(suppressed.paused_reason).toMatch(/refused the address/);
  });

  it('rotates a secret: both sign during the grace period', async () => {
    const { subscription, secret: oldSecret } = await subscribeWebhook();
    const rotated = await service.admin('POST', `/api/subscriptions/${subscription.id}/rotate-secret`);
    expect(rotated.body.secret).not.toBe(oldSecret);
    await vendor.setIncidents([rawIncident({ id: 6 })]);
    await service.poll();
    await service.deliverNow();
    const [request] = receiver.received;
    for (const secret of [oldSecret, rotated.body.secret]) {
      expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    }
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  it('sends a test message of each event type, and replays everything since a time', async () => {
    const { subscription } = await subscribeWebhook();
    const test = await service.admin('POST', `/api/subscriptions/${subscription.id}/test`);
    expect(test.body.ok).toBe(true);
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual([
      'incident.created',
      'incident.status_changed',
      'incident.note_added',
      'incident.note_edited',
      'incident.updated',
      'monitor.blind',
      'monitor.recovered',
      'component.status_changed',
    ]);
    // A receiver that drops repeated webhook-ids (as the README tells it to) must still see a second test.
    await service.admin('POST', `/api/subscriptions/${subscription.id}/test`);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(16);
    receiver.received.splice(8);
    await vendor.setIncidents([rawIncident({ id: 7 }), rawIncident({ id: 8 })]);
    await service.poll();
    await service.deliverNow();
    expect(receiver.received).toHaveLength(10);
    const replay = await service.admin('POST', '/api/delivery-replays', { since: new Date(clock.now() - 60_000).toISOString() });
    expect(replay.body.replayed).toBe(2);
    await service.deliverNow();
    expect(receiver.received).toHaveLength(12);
  });

  it('refuses bad requests with a clear error, and keeps the admin API behind the token', async () => {
    const bad = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: 'ftp://x' });
    expect(bad).toMatchObject({ status: 400, body: { ok: false, error: 'invalid_request' } });
    expect(bad.body.detail).toMatch(/url must be/);
    const typo = await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'a@b.test', filter: {} });
    expect(typo.status).toBe(400);
    expect((await fetch(`${service.url}/api/subscriptions`)).status).toBe(401);
    expect((await fetch(`${service.url}/api/deliveries`)).status).toBe(401);
    expect((await fetch(`${service.url}/api/delivery-replays`, { method: 'POST' })).status).toBe(401);
    expect((await service.admin('GET', '/api/subscriptions/nope')).status).toBe(404);
  });

  it('lists subscriptions with a cursor and never shows a secret again', async () => {
    for (let i = 0; i < 3; i++) await subscribeWebhook();
    const first = await service.admin('GET', '/api/subscriptions?limit=2');
    expect(first.body.subscriptions).toHaveLength(2);
    const second = await service.admin('GET', `/api/subscriptions?limit=2&cursor=${encodeURIComponent(first.body.response_metadata.next_cursor)}`);
    expect(second.body.subscriptions).toHaveLength(1);
    expect(second.body.response_metadata.next_cursor).toBe('');
    expect(JSON.stringify([first.body, second.body])).not.toMatch(/whsec_/);
  });
});
