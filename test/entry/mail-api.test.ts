/**
 * The Node form sends email through Postmark's API when MAIL_API_TOKEN is set instead of SMTP_URL:
 * the real serve entry on loopback, a sign-up through the public form, and the confirmation mail
 * as Postmark's stand-in receives it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPostmark, type TestPostmark } from '../helpers/postmark-api.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';

describe('email through the mail API on Node', () => {
  let vendor: TestVendor;
  let postmark: TestPostmark;
  let service: TestService;
  beforeEach(async () => {
    vendor = await startTestVendor();
    postmark = await startPostmark();
    service = await startTestService(vendor.url, {
      env: {
        MAIL_API_TOKEN: postmark.token,
        MAIL_API_URL: postmark.url,
        MAIL_FROM: 'statuswatch <status@example.test>',
        PUBLIC_URL: 'https://status.example.test',
      },
    });
  });
  afterEach(async () => {
    await service.close();
    await postmark.close();
    await vendor.close();
  });

  it('mails the confirmation link of a public sign-up through Postmark', async () => {
    const res = await fetch(`${service.url}/subscribe`, {
      method: 'POST',
      headers: { origin: service.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'ops@example.test', timezone: 'UTC' }),
      redirect: 'manual',
    });
    expect(res.status).toBeLessThan(400);
    await expect.poll(() => postmark.accepted.length).toBe(1);
    const mail = postmark.accepted[0]!;
    expect(mail.To).toBe('ops@example.test');
    expect(mail.From).toBe('statuswatch <status@example.test>');
    expect(mail.TextBody).toMatch(/https:\/\/status\.example\.test\/subscribe\/confirm\?token=[\w-]+/);
  });
});
