/**
 * `/reliability` in real Chromium: the twelve-month tables behind the charts are folded, so the
 * page is read chart by chart instead of 5,000 px of mostly dashes, and nothing scrolls sideways.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage } from './helpers.ts';

const outage = rawIncident({
  id: 7101,
  title: 'Some files fail to upload',
  type: 'outage',
  status: 'resolved',
  services: ['Files'],
  date_created: vendorTime(40 * 24 * 60),
  date_updated: vendorTime(40 * 24 * 60 - 20),
  notes: [
    { body: '<p>Uploads fail.</p>', date_created: vendorTime(40 * 24 * 60) },
    { body: '<p>Fixed.</p>', date_created: vendorTime(40 * 24 * 60 - 20) },
  ],
});

describe('/reliability in Chromium', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([outage]);
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });

  it('folds the monthly tables under a summary that says what is inside, keeping the page short', async () => {
    const { context, page, problems } = await watchedPage(browser, { viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      const heightPx = await page.evaluate(() => document.documentElement.scrollHeight);
      await screenshot(page, 'a11y-reliability-desktop-after');
      // 4,646 px with the tables open on this archive; folded, about 3,500. The aim of
      // 2,500 px also needs the charts reworked (full width, shorter), which this test does not cover yet.
      expect(heightPx).toBeLessThan(4000);

      // Every chart's table is there, folded, and a summary names it.
      const tables = page.locator('figure.chart table.chart-table');
      // Incidents, time to resolve, first update; detection lag has no figures on a freshly filled archive.
      expect(await tables.count()).toBeGreaterThanOrEqual(3);
      const folded = page.locator('figure.chart details:not([open]) table.chart-table');
      expect(await folded.count()).toBe(await tables.count());
      const summaries = await page.locator('figure.chart details > summary').allTextContents();
      expect(summaries.every((s) => /table/i.test(s) && /month/i.test(s))).toBe(true);

      // Opened as a reader would, the figures show.
      await page.locator('figure.chart details > summary').first().click();
      expect(await tables.first().isVisible()).toBe(true);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('does not scroll sideways on a 390 px phone', async () => {
    const { context, page } = await watchedPage(browser, { viewport: MOBILE_VIEWPORT });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      await screenshot(page, 'a11y-reliability-mobile-after');
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    } finally {
      await context.close();
    }
  });
});
