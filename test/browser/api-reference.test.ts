/**
 * `/api/reference` in real Chromium at desktop and phone widths: every operation with its
 * parameters, body and answers, nothing wider than the window at 390 px, no request to another
 * origin, and headings in order (h1, then h2 per operation, h3 per part).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, watchedPage } from './helpers.ts';

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'mobile', viewport: MOBILE_VIEWPORT },
];

describe('/api/reference in a browser', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestService(vendor.url);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });

  for (const { name, viewport } of WIDTHS) {
    it(`fits ${viewport.width} px, asks no other origin, and keeps its headings in order`, async () => {
      const { context, page, problems } = await watchedPage(browser, { viewport });
      const origins = new Set<string>();
      page.on('request', (request) => origins.add(new URL(request.url()).origin));
      try {
        await page.goto(`${service.url}/api/reference`, { waitUntil: 'load' });
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        await screenshot(page, `api-reference-${name}-after`);
        expect(widths.scroll).toBeLessThanOrEqual(widths.client);
        expect([...origins]).toEqual([new URL(service.url).origin]);
        const headings = await page.$$eval('main h1, main h2, main h3', (els) => els.map((el) => Number(el.tagName.slice(1))));
        expect(headings[0]).toBe(1);
        for (let i = 1; i < headings.length; i++) expect(headings[i]! - headings[i - 1]!).toBeLessThanOrEqual(1);
        // The list page's answer, three levels down, reads as a person would look for it.
        const incidents = page.locator('article#getApiIncidents');
        await expect.poll(() => incidents.getByText('next_cursor').count()).toBeGreaterThan(0);
        expect(await incidents.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Parameters', 'Answers']);
        expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
      } finally {
        await context.close();
      }
    });
  }
});
