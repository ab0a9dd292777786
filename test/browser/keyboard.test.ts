/**
 * The dashboard with a keyboard, in real Chromium, at desktop and phone widths: the skip link comes
 * first, each service row is one tab stop (not 90), and arrow keys, Home and End move across the
 * days that show (90 on a desktop, the newest 30 on a phone) and announce each one.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage, type WatchedPage } from './helpers.ts';

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, days: 90 },
  { name: 'phone', viewport: MOBILE_VIEWPORT, days: 30 },
];

const filesOutage = rawIncident({
  id: 5101,
  title: 'Some files fail to upload',
  type: 'outage',
  status: 'resolved',
  services: ['Files'],
  date_created: vendorTime(2 * 24 * 60),
  date_updated: vendorTime(2 * 24 * 60 - 30),
  notes: [{ body: '<p>Uploads fail.</p>', date_created: vendorTime(2 * 24 * 60) }],
});

/** Tab from the top of the page until focus leaves the document or comes round again; returns what each stop was. */
async function tabStops(page: import('playwright-core').Page, limit: number): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const what = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      // A day is named with its row: every row's newest day may read "no incidents".
      const row = el.parentElement?.getAttribute('aria-labelledby');
      const rowName = row ? document.getElementById(row)?.textContent : '';
      return `${el.tagName.toLowerCase()}.${el.className}|${rowName}|${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40)}`;
    });
    if (what === null || stops.includes(what)) break;
    stops.push(what);
  }
  return stops;
}

describe('dashboard with a keyboard', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;
  let current: WatchedPage | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([filesOutage]);
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  it.each(WIDTHS)('has the skip link first, then one tab stop per service row, not one per day ($name)', async ({ name, viewport }) => {
    current = await watchedPage(browser, { viewport });
    const { page, problems } = current;
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    const rows = await page.locator('.service-row').count();
    expect(rows).toBeGreaterThan(5);

    const stops = await tabStops(page, 400);
    expect(stops[0]).toMatch(/^a\.skip-link\|/);
    expect(stops.length).toBeLessThan(400);
    const dayStops = stops.filter((s) => s.startsWith('li.day'));
    expect(dayStops).toHaveLength(rows);
    // Services plus a handful: the header's links, the incident card, the footer.
    expect(stops.length).toBeLessThanOrEqual(rows + 20);

    // The skip link takes focus past the header to the content.
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await screenshot(page, `a11y-dashboard-keyboard-${name}-after`);
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it.each(WIDTHS)('moves across the days that show with arrow keys, Home and End, announcing each day ($name)', async ({ viewport, days: shown }) => {
    current = await watchedPage(browser, { viewport });
    const { page, problems } = current;
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    const files = page.locator('.service-row', { has: page.locator('.service-name', { hasText: /^Files$/ }) });
    const days = files.locator('li.day');
    const count = await days.count();
    // Only the days that show: Home on a phone is the oldest of its 30, not a hidden day.
    const labels = await days.evaluateAll((els) => els.filter((el) => el.getClientRects().length > 0).map((el) => el.getAttribute('aria-label')));
    expect(labels).toHaveLength(shown);

    // Tab reaches the row on its newest day.
    await days.nth(count - 1).focus();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    expect(await focused()).toBe(labels[shown - 1]);

    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe(labels[shown - 2]);
    await page.keyboard.press('ArrowLeft');
    // Two days ago: the outage, named for a screen reader.
    expect(await focused()).toBe(labels[shown - 3]);
    expect(labels[shown - 3]).toContain(`${filesOutage.title} (outage)`);
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe(labels[shown - 2]);
    await page.keyboard.press('Home');
    expect(await focused()).toBe(labels[0]);
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe(labels[0]);
    await page.keyboard.press('End');
    expect(await focused()).toBe(labels[shown - 1]);

    // The row remembers the day: tabbing away and back returns to it, still one stop.
    await page.keyboard.press('Home');
    expect(await files.locator('li.day[tabindex="0"]').count()).toBe(1);
    expect(await files.locator('li.day[tabindex="0"]').getAttribute('aria-label')).toBe(labels[0]);
    // The focus ring is visible on the day.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it('keeps each row a tab stop when the window narrows past the day that had it', async () => {
    current = await watchedPage(browser, { viewport: WIDTHS[0]!.viewport });
    const { page, problems } = current;
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    const files = page.locator('.service-row', { has: page.locator('.service-name', { hasText: /^Files$/ }) });
    await files.locator('li.day').last().focus();
    // The oldest of 90 days takes the row's stop, then the window narrows and hides it.
    await page.keyboard.press('Home');
    await page.setViewportSize(MOBILE_VIEWPORT);
    const stop = files.locator('li.day[tabindex="0"]');
    await expect.poll(() => stop.evaluate((el) => el.getClientRects().length > 0)).toBe(true);
    expect(await stop.count()).toBe(1);
    expect(await stop.getAttribute('aria-label')).toBe(await files.locator('li.day').last().getAttribute('aria-label'));
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
