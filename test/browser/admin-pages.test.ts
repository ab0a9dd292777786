/**
 * The admin pages in real Chromium, signed in through the form: the deliveries table keeps every
 * column in view at 1,280 px and scrolls inside itself on a phone, its dates stay on one line, a
 * refused feed payload wears the warning accent (light and dark), and a subscription is created
 * through the form with its secret shown once.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { installApp, startAppWorld, subscribeApp, type AppWorld } from '../helpers/app-channel.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage, type WatchedPage } from './helpers.ts';

const DESKTOP = { width: 1280, height: 800 };
/** Long but real: a receiver path with a token in it, as chat webhooks have. */
const LONG_PATH = `/services/T0ABCDEF/B0GHIJKL/${'x'.repeat(60)}`;
const NO_PROBLEMS = { consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] };

/** "#b7791f" → "rgb(183, 121, 31)", as getComputedStyle writes colours. */
function rgb(hex: string): string {
  const h = hex.trim().replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

describe('admin pages in Chromium', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let world: AppWorld;
  let service: TestService;
  let browser: Browser;
  let current: WatchedPage | undefined;
  let rejectedRunId = '';

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver();
    world = await startAppWorld(['status-updates'], 'Demo workspace');
    service = await startTestService(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...world.env } });
    expect((await service.poll()).outcome).toBe('ok');
    const installation = await installApp(service.admin, world);
    await subscribeApp(service.admin, installation, world.channels['status-updates']!);
    const origin = new URL(receiver.url).origin;
    await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${origin}${LONG_PATH}` });
    await service.admin('POST', '/api/subscriptions', { channel: 'channel', url: `http://127.0.0.1:9${LONG_PATH}` });
    await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url, filters: { services: ['Files'] } });
    await vendor.setIncidents([
      rawIncident({
        id: 88,
        title: 'Messages are delayed and some uploads fail for workspaces on the enterprise grid',
        services: ['Messaging', 'Files'],
        date_created: vendorTime(30),
        date_updated: vendorTime(5),
      }),
    ]);
    await service.poll();
    await service.deliverNow();
    // A payload that is not a feed at all, kept for the admin to look at.
    await vendor.fault({ target: '*', kind: 'html' });
    const refused = await service.poll();
    rejectedRunId = refused.run.id;
    await vendor.clearFaults();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await receiver?.close();
    await world?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  async function signedIn(viewport = DESKTOP): Promise<WatchedPage> {
    current = await watchedPage(browser, { viewport });
    const { page } = current;
    await page.goto(`${service.url}/admin`, { waitUntil: 'load' });
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${service.url}/admin`), page.getByRole('button', { name: 'Sign in' }).click()]);
    return current;
  }

  /** How the deliveries table sits on the page: its scroll box, its last column, each date's lines. */
  const tableLayout = (page: Page) =>
    page.evaluate(() => {
      const box = document.querySelector('.table-scroll') as HTMLElement;
      const lastHead = [...box.querySelectorAll('thead th')].at(-1) as HTMLElement;
      const times = [...box.querySelectorAll('time')].map((t) => {
        const lineHeight = Number.parseFloat(getComputedStyle(t).lineHeight) || Number.parseFloat(getComputedStyle(t).fontSize) * 1.5;
        return { text: t.textContent, lines: Math.round(t.getBoundingClientRect().height / lineHeight), rects: t.getClientRects().length };
      });
      return {
        boxScrollWidth: box.scrollWidth,
        boxClientWidth: box.clientWidth,
        boxRight: box.getBoundingClientRect().right,
        lastHeadRight: lastHead.getBoundingClientRect().right,
        lastHeadText: lastHead.textContent,
        pageScrollWidth: document.documentElement.scrollWidth,
        pageClientWidth: document.documentElement.clientWidth,
        times,
      };
    });

  it('shows every column of the deliveries table at 1,280 px, each date on one line', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${service.url}/admin/deliveries`, { waitUntil: 'load' });
    await screenshot(page, 'admin-deliveries-1280');
    const layout = await tableLayout(page);
    expect(layout.lastHeadText).toBe('Last error');
    // Nothing to scroll to: the last column is inside the box, not cut off at its edge.
    expect(layout.boxScrollWidth).toBeLessThanOrEqual(layout.boxClientWidth);
    expect(layout.lastHeadRight).toBeLessThanOrEqual(layout.boxRight + 0.5);
    expect(layout.times.length).toBeGreaterThan(0);
    for (const time of layout.times) expect(time, `${time.text}`).toMatchObject({ lines: 1, rects: 1 });
    expect(problems).toEqual(NO_PROBLEMS);
  });

  it('keeps a phone’s page still and scrolls the deliveries table inside itself, dates on one line', async () => {
    const { page, problems } = await signedIn(MOBILE_VIEWPORT);
    await page.goto(`${service.url}/admin/deliveries`, { waitUntil: 'load' });
    await screenshot(page, 'admin-deliveries-mobile');
    const layout = await tableLayout(page);
    expect(layout.pageScrollWidth).toBeLessThanOrEqual(layout.pageClientWidth);
    // The table's own box scrolls (a keyboard can focus it), so every column can be reached.
    expect(await page.locator('.table-scroll').getAttribute('tabindex')).toBe('0');
    for (const time of layout.times) expect(time, `${time.text}`).toMatchObject({ lines: 1, rects: 1 });
    expect(problems).toEqual(NO_PROBLEMS);
  });

  it('gives a refused feed payload the warning accent, never the green of all clear, light and dark', async () => {
    const { page, problems } = await signedIn();
    await page.goto(`${service.url}/admin/polls/${rejectedRunId}`, { waitUntil: 'load' });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const colours = await page.evaluate(() => {
        const card = document.querySelector('article[aria-labelledby="rejected-0"]') as HTMLElement;
        const root = getComputedStyle(document.documentElement);
        return {
          border: getComputedStyle(card).borderLeftColor,
          warning: root.getPropertyValue('--warning-border'),
          ok: root.getPropertyValue('--ok-border'),
        };
      });
      expect(colours.border, scheme).toBe(rgb(colours.warning));
      expect(colours.border, scheme).not.toBe(rgb(colours.ok));
      await screenshot(page, `admin-refused-payload-${scheme}`);
    }
    expect(problems).toEqual(NO_PROBLEMS);
  });

  it('creates a webhook subscription through the form and shows its secret once', async () => {
    const { page, problems } = await signedIn();
    await page.getByRole('link', { name: 'create one' }).click();
    await page.waitForURL(`${service.url}/admin/new-subscription`);
    await page.getByLabel('URL').fill(`${receiver.url}/from-the-form`);
    await page.getByRole('checkbox', { name: 'Files' }).check();
    await screenshot(page, 'admin-subscription-new');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.waitForURL(`${service.url}/admin/new-subscription`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Subscription created');
    expect(await page.locator('pre.secret').textContent()).toMatch(/^whsec_/);
    const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { url?: string; filters: unknown }[];
    expect(listed.find((s) => s.url === `${receiver.url}/from-the-form`)).toMatchObject({ filters: { services: ['Files'], monitor: true } });

    // The overview, with its links, in the same session.
    await page.goto(`${service.url}/admin`, { waitUntil: 'load' });
    expect(await page.getByRole('heading', { name: 'Vendor feed' }).count()).toBe(1);
    await screenshot(page, 'admin-overview');
    expect(problems).toEqual(NO_PROBLEMS);
  });

  /** Whether a page and each of its tables stay inside their boxes, and each id detail line is one line. */
  const widths = (page: Page) =>
    page.evaluate(() => ({
      page: { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth },
      tables: [...document.querySelectorAll('.table-scroll')].map((box) => ({ scroll: box.scrollWidth, client: box.clientWidth })),
      details: [...document.querySelectorAll('.id-detail')].map((d) => ({
        text: d.textContent,
        lines: Math.round(
          d.getBoundingClientRect().height / (Number.parseFloat(getComputedStyle(d).lineHeight) || Number.parseFloat(getComputedStyle(d).fontSize) * 1.5),
        ),
      })),
    }));

  for (const [name, viewport] of [
    ['1,280', DESKTOP],
    ['390', MOBILE_VIEWPORT],
  ] as const) {
    it(`keeps /admin/app's Uninstall button inside its table, and the page still, at ${name} px`, async () => {
      const { page, problems } = await signedIn(viewport);
      await page.goto(`${service.url}/admin/app`, { waitUntil: 'load' });
      await screenshot(page, `admin-app-${name.replace(',', '')}`);
      expect(await page.locator('th[scope="row"]').first().textContent()).toContain('Demo workspace');
      const measured = await widths(page);
      expect(measured.page.scroll).toBeLessThanOrEqual(measured.page.client);
      if (viewport === DESKTOP) {
        for (const table of measured.tables) expect(table.scroll).toBeLessThanOrEqual(table.client);
        const [button, box] = await Promise.all([
          page.getByRole('button', { name: 'Uninstall' }).boundingBox(),
          page.locator('.table-scroll').first().boundingBox(),
        ]);
        expect(button!.x + button!.width).toBeLessThanOrEqual(box!.x + box!.width + 0.5);
      }
      expect(problems).toEqual(NO_PROBLEMS);
    });

    it(`lists subscriptions as a table of names, each id detail on one line, the page still, at ${name} px`, async () => {
      const { page, problems } = await signedIn(viewport);
      await page.goto(`${service.url}/admin/subscriptions`, { waitUntil: 'load' });
      await screenshot(page, `admin-subscriptions-${name.replace(',', '')}`);
      expect(await page.getByRole('link', { name: '#status-updates (Demo workspace)' }).count()).toBe(1);
      const listed = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as unknown[];
      expect(await page.locator('table.data-table tbody tr').count()).toBe(listed.length);
      const measured = await widths(page);
      expect(measured.page.scroll).toBeLessThanOrEqual(measured.page.client);
      if (viewport === DESKTOP) for (const table of measured.tables) expect(table.scroll).toBeLessThanOrEqual(table.client);
      expect(measured.details.length).toBeGreaterThan(0);
      for (const detail of measured.details) expect(detail, `${detail.text}`).toMatchObject({ lines: 1 });
      expect(problems).toEqual(NO_PROBLEMS);
    });
  }
});
