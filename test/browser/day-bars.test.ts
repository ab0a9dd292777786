/**
 * The dashboard's day bars at phone and desktop widths, in real Chromium: on a 390 px phone 90 bars
 * were 2 px hairlines and an incident's day all but vanished, so a narrow screen shows the last 30
 * days (as the best status pages do), every bar at least 6 px wide; a desktop keeps all 90.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { middayYesterdayUtc, publicPagesWorld } from '../fixtures/public-pages-world.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, watchedPage } from './helpers.ts';

const DESKTOP = { width: 1280, height: 800 };
const MIN_BAR_WIDTH_PX = 6;

/** What a reader sees of each row: the visible days' labels and widths, per service. */
function visibleRows(page: Page) {
  return page.locator('.service-row').evaluateAll((rows) =>
    rows.map((row) => {
      const days = [...row.querySelectorAll('li.day')].filter((day) => day.getClientRects().length > 0);
      return {
        service: row.querySelector('.service-name')?.textContent ?? '',
        // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would add the hidden other-width version
        summary: (row.querySelector('.service-summary') as HTMLElement | null)?.innerText ?? '',
        labels: days.map((day) => day.getAttribute('aria-label') ?? ''),
        classes: days.map((day) => day.className),
        widths: days.map((day) => day.getBoundingClientRect().width),
      };
    }),
  );
}

describe('day bars by screen width', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    // The service's clock runs from noon UTC yesterday, so the incidents going on (begun 30 and 60
    // minutes before) count one day each, as the expectations below do, even for a run at 00:10.
    const startMs = middayYesterdayUtc(Date.now());
    const runFromMs = Date.now();
    await vendor.setIncidents(publicPagesWorld(startMs));
    service = await startTestService(vendor.url, { clock: { now: () => startMs + (Date.now() - runFromMs) } });
    expect((await service.poll()).outcome).toBe('ok');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });

  it('shows the last 30 days on a 390 px phone, each bar at least 6 px wide, the incident days in colour', async () => {
    const { context, page, problems } = await watchedPage(browser, { viewport: MOBILE_VIEWPORT });
    try {
      await page.goto(`${service.url}/`, { waitUntil: 'load' });
      await screenshot(page, 'day-bars-390-after');
      const rows = await visibleRows(page);
      expect(rows.length).toBeGreaterThan(10);
      for (const row of rows) {
        expect(row.labels, row.service).toHaveLength(30);
        expect(Math.min(...row.widths), row.service).toBeGreaterThanOrEqual(MIN_BAR_WIDTH_PX);
      }
      // The Files outage two days ago is a visible, coloured day; the Messaging outage forty days ago is not shown.
      const files = rows.find((r) => r.service === 'Files')!;
      expect(files.classes.at(-3)).toContain('day-outage');
      expect(files.labels.at(-3)).toContain('Some files fail to upload (outage)');
      const messaging = rows.find((r) => r.service === 'Messaging')!;
      expect(messaging.labels.join(' ')).not.toContain('Messages fail to send');
      // What the page says matches what it shows: 30 days, in the heading, the summaries and the range.
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would add the hidden other-width version
      expect(await page.locator('#services-title').innerText()).toBe('Services, last 30 days');
      // The 30 days shown hold one incident day; the availability is over the 90 days.
      expect(messaging.summary).toMatch(/^\d+\.\d{3}% available over 90 days · 1 day with an incident$/);
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would add the hidden other-width version
      const range = await page.locator('.bar-range').innerText();
      const oldest = /(\d{4}-\d{2}-\d{2}) to/.exec(range)?.[1];
      expect(files.labels[0]).toMatch(new RegExp(`^${oldest}:`));
      // Nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('keeps all 90 days on a desktop', async () => {
    const { context, page } = await watchedPage(browser, { viewport: DESKTOP });
    try {
      await page.goto(`${service.url}/`, { waitUntil: 'load' });
      const rows = await visibleRows(page);
      for (const row of rows) expect(row.labels, row.service).toHaveLength(90);
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would add the hidden other-width version
      expect(await page.locator('#services-title').innerText()).toBe('Services, last 90 days');
      const messaging = rows.find((r) => r.service === 'Messaging')!;
      expect(messaging.labels.join(' ')).toContain('Messages fail to send');
      // Each day once, under its worst incident.
      expect(messaging.summary).toMatch(/^\d+\.\d{3}% available over 90 days · 1 day with an outage, 1 with an incident$/);
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees; textContent would add the hidden other-width version
      const range = await page.locator('.bar-range').innerText();
      expect(messaging.labels[0]).toMatch(new RegExp(`^${/(\d{4}-\d{2}-\d{2}) to/.exec(range)?.[1]}:`));
    } finally {
      await context.close();
    }
  });
});
