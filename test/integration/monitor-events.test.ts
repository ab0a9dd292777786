/**
 * Blindness is news: the simulated vendor goes dark past the staleness limit, flickers,
 * and comes back. Through the service's app with a clock the test moves, delivered to a real
 * webhook receiver (signatures checked with node:crypto, not our signer) and a real SMTP server.
 */
import { createHmac } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const MINUTE_MS = 60_000;
const filesOutage = rawIncident({ id: 1800, type: 'outage', services: ['Files'], title: 'Files fail to upload' });
const filesResolved = { ...filesOutage, status: 'resolved', date_updated: '2026-10-01T07:00:00-07:00' };

/** Standard Webhooks by hand: base64 HMAC-SHA256 of `id.timestamp.body` under the decoded secret. */
function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  return String(request.headers['webhook-signature']).split(' ').includes(expected);
}

describe('monitor.blind and monitor.recovered', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let receiver: WebhookReceiver;
  let optedOut: WebhookReceiver;
  let service: TestApp;
  let nowMs = Date.now();
  let secret = '';
  let lastGoodReadMs = 0;

  const types = (requests: ReceivedRequest[]) => requests.map((r) => JSON.parse(r.body).type as string);
  const mailsTo = (address: string) => smtp.received.filter((m: ParsedMail) => m.to && !Array.isArray(m.to) && m.to.text === address);
  const pollAfter = async (minutes: number) => {
    nowMs += minutes * MINUTE_MS;
    const result = await service.poll();
    await service.deliverNow();
    return result;
  };

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    smtp = await startSmtp();
    receiver = await startWebhookReceiver();
    optedOut = await startWebhookReceiver();
    service = await startTestApp(vendor.url, {
      clock: { now: () => nowMs },
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'statuswatch <status@example.test>',
        PUBLIC_URL: 'https://status.example.test',
        ADMIN_EMAIL: 'admin@example.test',
      },
    });
    await vendor.setIncidents([filesOutage]);
    expect((await service.poll()).outcome).toBe('ok'); // seeds: history, not news
    lastGoodReadMs = nowMs;

    const hook = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url, filters: { services: ['Files'] } });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;
    expect(hook.body.subscription.filters.monitor).toBe(true);
    // As an older subscription is: it never asked for monitor events, and gets none.
    const older = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: optedOut.url, filters: { monitor: false } });
    expect(older.status).toBe(201);
    // An edit that does not mention it leaves it as it was.
    const edited = await service.admin('PATCH', `/api/subscriptions/${older.body.subscription.id}`, {
      filters: { services: ['Files'] },
      timezone: 'Europe/Berlin',
    });
    expect(edited.body.subscription.filters).toEqual({ services: ['Files'], monitor: false });
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'email', email: 'ops@example.test' })).status).toBe(201);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await optedOut?.close();
    await smtp?.close();
    await vendor?.close();
  });

  it('says nothing within the limit, then exactly one monitor.blind, signed, by webhook and email, and to the admin', async () => {
    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    expect((await pollAfter(4)).outcome).toBe('failed');
    expect(receiver.received).toHaveLength(0);

    const blind = await pollAfter(2);
    expect(blind.events.map((e: { type: string }) => e.type)).toEqual(['monitor.blind']);
    expect(blind.events[0].incident_id).toBeNull();
    for (const minutes of [1, 1, 10, 30]) expect((await pollAfter(minutes)).events).toEqual([]);

    expect(types(receiver.received)).toEqual(['monitor.blind']);
    const [request] = receiver.received;
    expect(signatureValid(request!, secret)).toBe(true);
    const body = JSON.parse(request!.body);
    expect(body.data.since).toBe(new Date(lastGoodReadMs).toISOString());
    expect(body.data.last_error).toContain('503');
    expect(body.data.last_known.ongoing).toEqual([{ id: '1800', title: 'Files fail to upload', type: 'outage', status: 'active', services: ['Files'] }]);
    expect(optedOut.received).toHaveLength(0);

    const [mail, ...more] = mailsTo('ops@example.test');
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe("[Blind] statuswatch cannot read the vendor's status feed");
    expect(mail!.text).toContain('no data since');
    expect(mail!.text).toContain('Files fail to upload');
    const admin = mailsTo('admin@example.test');
    expect(admin.map((m) => m.subject)).toEqual(["[statuswatch] cannot read the vendor's status feed"]);
  });

  it('on recovery, one monitor.recovered, then the changes found as their own events', async () => {
    await vendor.clearFaults();
    await vendor.setIncidents([filesResolved]);
    const recovered = await pollAfter(1);
    expect(recovered.events.map((e: { type: string }) => e.type)).toEqual(['monitor.recovered', 'incident.status_changed']);
    lastGoodReadMs = nowMs;
    expect((await pollAfter(1)).events).toEqual([]);

    expect(types(receiver.received)).toEqual(['monitor.blind', 'monitor.recovered', 'incident.status_changed']);
    const body = JSON.parse(receiver.received[1]!.body);
    expect(body.data.blind_for_ms).toBe(49 * MINUTE_MS); // from the last good read to the read that ended it
    expect(receiver.received.every((r) => signatureValid(r, secret))).toBe(true);
    expect(mailsTo('ops@example.test').map((m) => m.subject)).toEqual([
      "[Blind] statuswatch cannot read the vendor's status feed",
      "[Recovered] statuswatch reads the vendor's status feed again",
      '[Resolved] Files: Files fail to upload',
    ]);
    expect(mailsTo('admin@example.test')).toHaveLength(2);
    expect(optedOut.received.map((r) => JSON.parse(r.body).type)).toEqual(['incident.status_changed']);
  });

  it('a feed flickering around the limit sends no storm: nothing more within the quiet time, one blind after it', async () => {
    // Dark for 6 minutes, back for a minute, dark again, back: twice within half an hour.
    for (let round = 0; round < 2; round++) {
      await vendor.fault({ target: '*', kind: 'status', status: 503 });
      for (let minute = 0; minute < 6; minute++) await pollAfter(1);
      await vendor.clearFaults();
      expect((await pollAfter(1)).outcome).toBe('ok');
    }
    expect(types(receiver.received)).toEqual(['monitor.blind', 'monitor.recovered', 'incident.status_changed']);

    // Dark for good: past the quiet time, the blindness is told once, from its true start.
    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    const sinceMs = nowMs;
    for (let minute = 0; minute < 30; minute++) await pollAfter(1);
    expect(types(receiver.received).slice(3)).toEqual(['monitor.blind']);
    expect(JSON.parse(receiver.received[3]!.body).data.since).toBe(new Date(sinceMs).toISOString());
    expect(mailsTo('admin@example.test')).toHaveLength(3);
  });
});
