/**
 * The email sign-up in real Chromium: the form, the "check your inbox" page, the confirmation mail
 * as an in-process SMTP server receives it, its link opened in the browser, and the confirm button.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { freePort, launchBrowser, screenshot, watchedPage, type WatchedPage } from './helpers.ts';

const EMAIL = 'ana@example.test';

describe('email sign-up in Chromium', () => {
  let vendor: TestVendor;
  let smtp: TestSmtp;
  let service: TestService;
  let browser: Browser;
  let current: WatchedPage | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor();
    smtp = await startSmtp();
    // Mailed links start with PUBLIC_URL, so the service must know its own address before it starts.
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    service = await startTestService(vendor.url, {
      env: { PORT: String(port), PUBLIC_URL: publicUrl, SMTP_URL: smtp.url, MAIL_FROM: 'statuswatch <status@example.test>' },
    });
    expect(service.url).toBe(publicUrl);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await smtp?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  it('signs up through the form, the mailed link and the confirm button', async () => {
    current = await watchedPage(browser);
    const { page, problems } = current;
    await page.goto(`${service.url}/subscribe`, { waitUntil: 'load' });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Get status updates by email');
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByRole('checkbox', { name: 'Files' }).check();
    await screenshot(page, 'subscribe-form');
    await Promise.all([page.waitForURL(`${service.url}/subscribe/sent`), page.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Check your inbox');
    await screenshot(page, 'subscribe-check-inbox');

    await expect.poll(() => smtp.received.length).toBe(1);
    const mail = smtp.received[0]!;
    expect(mail.subject).toBe('Confirm your statuswatch subscription');
    expect(JSON.stringify(mail.to)).toContain(EMAIL);
    const link = new RegExp(`${service.url.replace(/\./g, '\\.')}/subscribe/confirm\\?token=[\\w-]+`).exec(mail.text ?? '')?.[0];
    expect(link, `a confirmation link in: ${mail.text}`).toBeDefined();
    const [pending] = (await service.admin('GET', '/api/subscriptions')).body.subscriptions;
    expect(pending).toMatchObject({ email: EMAIL, status: 'pending', filters: { services: ['Files'] } });

    // Opening the link only shows what would be confirmed; the button does it.
    await page.goto(link!, { waitUntil: 'load' });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your subscription');
    expect(await page.locator('main').textContent()).toContain(EMAIL);
    await screenshot(page, 'subscribe-confirm');
    await Promise.all([page.waitForURL(`${service.url}/subscribe/confirm`), page.getByRole('button', { name: 'Confirm subscription' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are subscribed');
    expect(await page.locator('main').textContent()).toContain(EMAIL);
    await screenshot(page, 'subscribe-confirmed');

    const { status, body } = await service.admin('GET', '/api/subscriptions');
    expect(status).toBe(200);
    expect(body.subscriptions).toHaveLength(1);
    expect(body.subscriptions[0]).toMatchObject({ email: EMAIL, status: 'active', filters: { services: ['Files'] } });
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
