/**
 * Webhook URLs a subscriber may not register, through the service's app (Node half, a real SQLite
 * file): names that are private whatever DNS says are refused at subscription time, in the one
 * error shape, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';

describe('webhook targets refused at subscription time', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('refuses .local, .internal, .home.arpa and single-label names with a reason, storing nothing', async () => {
    const refused: Record<string, string> = {
      'https://printer.local/hook': 'url is not allowed: printer.local is a multicast DNS name of the local link (RFC 6762)',
      'https://metadata.google.internal/computeMetadata/v1/':
        'url is not allowed: metadata.google.internal is a name reserved for private networks (.internal)',
      'https://nas.home.arpa/hook': 'url is not allowed: nas.home.arpa is a home network name (RFC 8375)',
      'https://intranet/hook': 'url is not allowed: intranet is a single-label name, resolved inside the local network',
    };
    for (const [url, detail] of Object.entries(refused)) {
      for (const channel of ['webhook', 'channel']) {
        const answer = await service.admin('POST', '/api/subscriptions', { channel, url });
        expect(answer.status, url).toBe(400);
        expect(answer.body, url).toEqual({
          ok: false,
          error: 'invalid_request',
          detail: `${detail} (set WEBHOOK_ALLOW_PRIVATE=true to allow plain http: and private or loopback targets)`,
        });
      }
    }
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toEqual([]);
  });

  it('a loopback or plain http: receiver is refused naming WEBHOOK_ALLOW_PRIVATE, in the API and on the form alike', async () => {
    const hint = '(set WEBHOOK_ALLOW_PRIVATE=true to allow plain http: and private or loopback targets)';
    const refused: Record<string, string> = {
      'http://127.0.0.1:9999/hook': `url must be an https: URL, got scheme http: ${hint}`,
      'https://127.0.0.1:9999/hook': `url is not allowed: address 127.0.0.1 is loopback (127.0.0.0/8) ${hint}`,
      'https://printer.local/hook': `url is not allowed: printer.local is a multicast DNS name of the local link (RFC 6762) ${hint}`,
    };
    const admin = await signInAdmin(service);
    for (const [url, detail] of Object.entries(refused)) {
      const answer = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url });
      expect(answer.body, url).toEqual({ ok: false, error: 'invalid_request', detail: expect.stringContaining(detail) });
      const form = await admin.post('/admin/new-subscription', { channel: 'webhook', url });
      expect(form.status, url).toBe(400);
      // The form's summary capitalises the sentence: "Url is not allowed: …".
      expect(form.html, url).toContain(detail.slice(1));
    }
    // A scheme that setting would not allow either is refused without pointing at it.
    const ftp = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: 'ftp://hooks.example.com/in' });
    expect(ftp.body.detail).not.toContain('WEBHOOK_ALLOW_PRIVATE');
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toEqual([]);
  });

  it('accepts a public name that only looks like one of them (so the refusals can fail)', async () => {
    const created = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: 'https://local.hooks.example.org/internal' });
    expect(created.status).toBe(201);
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toHaveLength(1);
  });
});
