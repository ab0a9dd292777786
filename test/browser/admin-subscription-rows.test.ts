/**
 * The admin's list of subscriptions at a glance, in real Chromium: with 20 subscriptions of every
 * kind (webhook, team-chat channel, email address and group, workspace app, PagerDuty, Opsgenie,
 * Teams, Discord), active, pending, paused by an admin and paused by a gone Teams workflow, failing
 * or not, with and without filters, each row is one or two lines tall at 1,280 px and the page
 * never scrolls sideways at 1,280 or 390 px. The actions that left the row are on the
 * subscription's own page, reached from the row by keyboard alone.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedScim, type RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { installApp, startAppWorld, subscribeApp, type AppWorld } from '../helpers/app-channel.ts';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { control } from '../sim/scim-control.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage, type WatchedPage } from './helpers.ts';

const DESKTOP = { width: 1280, height: 800 };
const NO_PROBLEMS = { consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] };
const SUBSCRIPTIONS = 20;
/** One or two lines of text, with the cell's padding: a row of stacked buttons was about 130 px. */
const MAX_ROW_HEIGHT_PX = 60;
const LONG_PATH = `/services/T0ABCDEF/B0GHIJKL/${'x'.repeat(60)}`;

describe('the subscriptions list at a glance', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let gone: WebhookReceiver;
  let smtp: TestSmtp;
  let directory: RunningSimulatedScim;
  let world: AppWorld;
  let service: TestService;
  let browser: Browser;
  let current: WatchedPage | undefined;
  let pausedId = '';

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver();
    gone = await startWebhookReceiver();
    smtp = await startSmtp();
    directory = await startSimulatedScim({ clock: Date.now });
    await control(directory, 'POST', '/seed', { users: 20, groups: [{ displayName: 'Support', members: 10 }] });
    world = await startAppWorld(['status-updates'], 'Demo workspace');
    service = await startTestService(vendor.url, {
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'status@example.test',
        SCIM_URL: directory.url,
        SCIM_TOKEN: directory.token,
        PAGERDUTY_EVENTS_URL: `${receiver.url}/pagerduty/v2/enqueue`,
        OPSGENIE_API_URL: `${receiver.url}/opsgenie`,
        ...world.env,
      },
    });
    expect((await service.poll()).outcome).toBe('ok');
    const installation = await installApp(service.admin, world);
    await subscribeApp(service.admin, installation, world.channels['status-updates']!);
    const origin = new URL(receiver.url).origin;
    const everyFilter = {
      services: ['Files', 'Messaging', 'Search'],
      types: ['outage', 'maintenance'],
      events: ['incident.created', 'incident.status_changed', 'monitor.blind'],
    };
    const bodies: Record<string, unknown>[] = [
      { channel: 'webhook', url: `${origin}${LONG_PATH}` },
      { channel: 'webhook', url: receiver.url, filters: everyFilter },
      { channel: 'webhook', url: `${receiver.url}/files`, filters: { services: ['Files'] } },
      // Nothing listens there: the subscription is failing.
      { channel: 'webhook', url: 'http://127.0.0.1:9/hook' },
      { channel: 'channel', url: `${origin}/chat${LONG_PATH}` },
      { channel: 'channel', url: `${receiver.url}/chat`, filters: everyFilter },
      { channel: 'email', email: 'ops-team-with-a-long-address@example.test', timezone: 'UTC' },
      { channel: 'email', email: 'cto@example.test', timezone: 'Europe/Amsterdam', filters: { services: ['Files'] } },
      { channel: 'email', group: 'Support', timezone: 'UTC' },
      { channel: 'pagerduty', routing_key: 'R0123456789ABCDEF0123456789ABCDE' },
      { channel: 'pagerduty', routing_key: 'R1123456789ABCDEF0123456789ABCDE', filters: { types: ['outage'] } },
      { channel: 'opsgenie', api_key: 'og-key-0001', region: 'eu' },
      { channel: 'opsgenie', api_key: 'og-key-0002', filters: everyFilter },
      { channel: 'teams', url: `${receiver.url}/teams/webhook` },
      // Its workflow is gone: the first delivery pauses it, with the reason why.
      { channel: 'teams', url: `${gone.url}/teams/gone` },
      { channel: 'discord', url: `${receiver.url}/discord/webhook` },
      { channel: 'discord', url: `${receiver.url}/discord/other`, filters: { services: ['Messaging'] } },
      { channel: 'webhook', url: `${receiver.url}/paused-by-admin` },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const created = await service.admin('POST', '/api/subscriptions', body);
      expect(created.status, JSON.stringify(body)).toBe(201);
      ids.push(created.body.subscription.id);
    }
    pausedId = ids.at(-1)!;
    expect((await service.admin('POST', `/api/subscriptions/${pausedId}/pause`)).status).toBe(200);
    // A sign-up on the public form: pending until its address confirms.
    const signUp = await fetch(`${service.url}/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
      body: new URLSearchParams({ email: 'reader@example.test' }),
      redirect: 'manual',
    });
    expect(signUp.status).toBe(303);
    gone.answerNext(...Array.from({ length: 5 }, () => ({ status: 404, body: 'workflow not found' })));
    await vendor.setIncidents([
      rawIncident({ id: 88, title: 'Messages are delayed', services: ['Messaging', 'Files'], date_created: vendorTime(30), date_updated: vendorTime(5) }),
    ]);
    await service.poll();
    await service.deliverNow();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await world?.close();
    await directory?.close();
    await smtp?.close();
    await gone?.close();
    await receiver?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  async function signedIn(viewport: { width: number; height: number }): Promise<WatchedPage> {
    current = await watchedPage(browser, { viewport });
    const { page } = current;
    await page.goto(`${service.url}/admin`, { waitUntil: 'load' });
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${service.url}/admin`), page.getByRole('button', { name: 'Sign in' }).click()]);
    return current;
  }

  const layout = (page: Page) =>
    page.evaluate(() => {
      const box = document.querySelector('.table-scroll') as HTMLElement;
      return {
        page: { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth },
        box: { scroll: box.scrollWidth, client: box.clientWidth },
        rows: [...box.querySelectorAll('tbody tr')].map((row) => ({
          name: row.querySelector('th')?.textContent ?? '',
          height: Math.round(row.getBoundingClientRect().height),
        })),
        // A line with an instant in it, whole or cut short: an instant cut short cannot be read.
        timeLines: [...box.querySelectorAll('td')]
          .filter((cell) => cell.querySelector('time'))
          .flatMap((cell) => [...cell.children].filter((line) => line.querySelector('time')) as HTMLElement[])
          .map((line) => ({ text: line.textContent ?? '', cut: line.scrollWidth > line.clientWidth })),
      };
    });

  it(`has ${SUBSCRIPTIONS} subscriptions of every kind and state to show`, async () => {
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { channel: string; status: string; paused_reason: string | null }[];
    expect(listed).toHaveLength(SUBSCRIPTIONS);
    expect(new Set(listed.map((s) => s.channel))).toEqual(new Set(['webhook', 'email', 'channel', 'app', 'pagerduty', 'opsgenie', 'teams', 'discord']));
    expect(new Set(listed.map((s) => s.status))).toEqual(new Set(['active', 'pending', 'paused']));
    expect(listed.some((s) => s.paused_reason?.includes('Teams workflow'))).toBe(true);
  });

  it('keeps every row one or two lines tall at 1,280 px, the table and the page inside the window', async () => {
    const { page, problems } = await signedIn(DESKTOP);
    await page.goto(`${service.url}/admin/subscriptions`, { waitUntil: 'load' });
    await screenshot(page, 'admin-subscription-rows-1280');
    const measured = await layout(page);
    expect(measured.rows).toHaveLength(SUBSCRIPTIONS);
    for (const row of measured.rows) expect(row.height, row.name).toBeLessThan(MAX_ROW_HEIGHT_PX);
    expect(measured.timeLines.length).toBeGreaterThan(0);
    for (const line of measured.timeLines) expect(line.cut, line.text).toBe(false);
    expect(measured.box.scroll).toBeLessThanOrEqual(measured.box.client);
    expect(measured.page.scroll).toBeLessThanOrEqual(measured.page.client);
    expect(problems).toEqual(NO_PROBLEMS);
  });

  it('keeps a phone’s page still at 390 px, the table scrolling inside its own box', async () => {
    const { page, problems } = await signedIn(MOBILE_VIEWPORT);
    await page.goto(`${service.url}/admin/subscriptions`, { waitUntil: 'load' });
    await screenshot(page, 'admin-subscription-rows-390');
    const measured = await layout(page);
    expect(measured.rows).toHaveLength(SUBSCRIPTIONS);
    expect(measured.page.scroll).toBeLessThanOrEqual(measured.page.client);
    expect(await page.locator('.table-scroll').getAttribute('tabindex')).toBe('0');
    expect(problems).toEqual(NO_PROBLEMS);
  });

  it('reaches a row’s pause, test and two-step delete on its own page by keyboard alone', async () => {
    const { page, problems } = await signedIn(DESKTOP);
    await page.goto(`${service.url}/admin/subscriptions?status=paused`, { waitUntil: 'load' });
    const change = page.locator(`a[href="/admin/subscriptions/${pausedId}"]`, { hasText: 'Change…' });
    await change.focus();
    await Promise.all([page.waitForURL(`${service.url}/admin/subscriptions/${pausedId}`), page.keyboard.press('Enter')]);
    await screenshot(page, 'admin-subscription-page-actions');
    expect(await page.getByRole('button', { name: 'Send test' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Resume' }).focus();
    await Promise.all([page.waitForURL(`${service.url}/admin/subscriptions/${pausedId}?done=resumed`), page.keyboard.press('Enter')]);
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(1);
    // Delete takes a second step: the button shows once "Delete…" is opened.
    expect(await page.getByRole('button', { name: 'Delete for good' }).isVisible()).toBe(false);
    await page.locator('summary', { hasText: 'Delete…' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Delete for good' }).focus();
    await Promise.all([page.waitForURL(`${service.url}/admin/subscriptions?done=deleted`), page.keyboard.press('Enter')]);
    expect((await service.admin('GET', `/api/subscriptions/${pausedId}`)).status).toBe(404);
    expect(problems).toEqual(NO_PROBLEMS);
  });
});
