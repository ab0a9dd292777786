/**
 * Pages stay inside the window at desktop and phone widths, in real Chromium: a vendor's long
 * unbroken title wraps instead of making the page scroll sideways.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage } from './helpers.ts';

/** 300 characters without a space, a hyphen or any other place a line may break. */
const UNBROKEN_TITLE = 'Uploads'.padEnd(300, 'x');

const longTitled = rawIncident({
  id: 6101,
  title: UNBROKEN_TITLE,
  type: 'incident',
  status: 'resolved',
  services: ['Files'],
  date_created: vendorTime(3 * 60),
  date_updated: vendorTime(2 * 60),
  notes: [{ body: `<p>${'y'.repeat(300)}</p>`, date_created: vendorTime(3 * 60) }],
});

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'mobile', viewport: MOBILE_VIEWPORT },
];

describe('page width', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([longTitled]);
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });

  for (const { name, viewport } of WIDTHS) {
    it(`wraps a 300-character unbroken title on /incidents/:id at ${viewport.width} px`, async () => {
      const { context, page, problems } = await watchedPage(browser, { viewport });
      try {
        await page.goto(`${service.url}/incidents/6101`, { waitUntil: 'load' });
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(UNBROKEN_TITLE);
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        await screenshot(page, `a11y-incident-long-title-${name}-after`);
        expect(widths.scroll).toBeLessThanOrEqual(widths.client);
        expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
      } finally {
        await context.close();
      }
    });
  }
});
