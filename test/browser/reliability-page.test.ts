/**
 * `/reliability` in real Chromium, at 1,280 and 390 px: charts that use the page's width, duration
 * axes that step 1-2-5 in one unit ("50 min" and "1 h 40 min" were ticks), labels never clipped
 * ("20 min" was cut to "20 mir") and at least 11 px on a phone (they shrank to about 5 px), tables
 * and the method folded, and the page under 2,500 px tall on a desktop (it was 5,365).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicPagesWorld } from '../fixtures/public-pages-world.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage } from './helpers.ts';

const DESKTOP = { width: 1280, height: 800 };
const CHART_IDS = ['chart-downtime', 'chart-incidents', 'chart-resolve', 'chart-first-update', 'chart-detection'];

/** Seen by a poll after the first: it gives the detection-lag chart figures, as a running archive has. */
const seenLive = rawIncident({
  id: 9201,
  title: 'Notifications arrive late',
  type: 'incident',
  status: 'active',
  services: ['Notifications'],
  date_created: vendorTime(7),
  date_updated: vendorTime(7),
  notes: [{ body: '<p>Some notifications arrive minutes late.</p>', date_created: vendorTime(7) }],
});

type Label = { chart: string; text: string; renderedPx: number; clipped: boolean };

/** Every label of the drawing each chart shows: its text, its rendered size, and whether it leaves its drawing. */
function chartLabels(page: Page): Promise<Label[]> {
  return page.evaluate((ids) => {
    const labels: Label[] = [];
    for (const id of ids) {
      const svg = [...document.querySelectorAll<SVGSVGElement>(`#${id} svg`)].find((s) => s.getClientRects().length > 0);
      if (!svg) continue;
      const box = svg.getBoundingClientRect();
      for (const text of svg.querySelectorAll<SVGTextElement>('text.chart-label')) {
        const r = text.getBoundingClientRect();
        labels.push({
          chart: id,
          text: text.textContent ?? '',
          renderedPx: parseFloat(getComputedStyle(text).fontSize) * (text.getScreenCTM()?.a ?? 0),
          clipped: r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5,
        });
      }
    }
    return labels;
  }, CHART_IDS);
}

/** The value-axis ticks of a line chart, bottom to top, as they read. */
function valueTicks(page: Page, id: string): Promise<string[]> {
  return page.evaluate((chart) => {
    const svg = [...document.querySelectorAll<SVGSVGElement>(`#${chart} svg`)].find((s) => s.getClientRects().length > 0);
    return [...(svg?.querySelectorAll<SVGTextElement>('text.chart-label[text-anchor="end"]') ?? [])].map((t) => t.textContent ?? '');
  }, id);
}

/** "0", "20 min", "40 min": one unit for the whole axis, steps of 1, 2, 5, 10 or 20 of it. */
function expectRoundDurationTicks(ticks: string[]) {
  expect(ticks[0]).toBe('0');
  const parsed = ticks.slice(1).map((t) => /^(\d+) (s|min|h|day|days)$/.exec(t));
  expect(parsed.every(Boolean), ticks.join(' | ')).toBe(true);
  const units = new Set(parsed.map((m) => m![2]!.replace('days', 'day')));
  expect(units.size, ticks.join(' | ')).toBe(1);
  const values = parsed.map((m) => Number(m![1]));
  const step = values[0]!;
  expect([1, 2, 5, 10, 20]).toContain(step);
  expect(values).toEqual(values.map((_, i) => step * (i + 1)));
}

describe('/reliability in Chromium', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    const world = publicPagesWorld(Date.now());
    await vendor.setIncidents(world);
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    await vendor.setIncidents([...world, seenLive]);
    expect((await service.poll()).events.map((e: { type: string }) => e.type)).toContain('incident.created');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await vendor?.close();
  });

  it('at 1,280 px: full-width charts, round duration ticks, no clipped label, folded tables, under 2,500 px', async () => {
    const { context, page, problems } = await watchedPage(browser, { viewport: DESKTOP });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      await screenshot(page, 'reliability-1280-after');
      const heightPx = await page.evaluate(() => document.documentElement.scrollHeight);
      expect(heightPx).toBeLessThan(2500);

      // Every chart is drawn, as wide as the page's content.
      const widths = await page.evaluate((ids) => {
        const content = document.querySelector('main h1')!.getBoundingClientRect().width;
        return ids.map((id) => {
          const shown = [...document.querySelectorAll(`#${id} svg`)].filter((s) => s.getClientRects().length > 0);
          return { id, shown: shown.length, ratio: shown[0] ? shown[0].getBoundingClientRect().width / content : 0 };
        });
      }, CHART_IDS);
      for (const w of widths) {
        expect(w.shown, w.id).toBe(1);
        expect(w.ratio, w.id).toBeGreaterThan(0.98);
      }

      const labels = await chartLabels(page);
      expect(labels.filter((l) => l.clipped)).toEqual([]);
      expect(labels.map((l) => l.text)).not.toContain('50 min');
      for (const id of ['chart-resolve', 'chart-first-update', 'chart-detection']) expectRoundDurationTicks(await valueTicks(page, id));
      const downtimeTicks = labels.filter((l) => l.chart === 'chart-downtime' && /\d/.test(l.text)).map((l) => l.text);
      expectRoundDurationTicks(downtimeTicks);

      // Every chart's table is there, folded, and a summary names it; so is the method.
      const tables = page.locator('figure.chart table.chart-table');
      expect(await tables.count()).toBe(4);
      expect(await page.locator('figure.chart details:not([open]) table.chart-table').count()).toBe(4);
      const summaries = await page.locator('figure.chart details > summary').allTextContents();
      expect(summaries.every((s) => /table/i.test(s) && /month/i.test(s))).toBe(true);
      expect(await page.locator('details.method-details:not([open]) dl.method').count()).toBe(1);
      await page.locator('figure.chart details > summary').first().click();
      expect(await tables.first().isVisible()).toBe(true);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('gives each meaning its own colour, and spaces every heading from the table above it', async () => {
    const { context, page } = await watchedPage(browser, { viewport: DESKTOP });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      // Every legend entry on the page: its words and its swatch's colour.
      const entries = await page.evaluate(() =>
        [...document.querySelectorAll('figure.chart li')]
          .filter((li) => li.getClientRects().length > 0 && li.querySelector('.swatch'))
          .map((li) => ({ name: li.textContent?.trim() ?? '', colour: getComputedStyle(li.querySelector('.swatch')!).backgroundColor })),
      );
      const meanings = new Map<string, Set<string>>();
      for (const { name, colour } of entries) meanings.set(colour, (meanings.get(colour) ?? new Set()).add(name));
      // "Median" is drawn in three charts, always in one colour; no colour stands for two things.
      expect([...meanings.values()].map((names) => [...names])).toEqual([...meanings.values()].map((names) => [...names].slice(0, 1)));
      expect(new Set(entries.map((e) => e.name))).toEqual(
        new Set(['Outage', 'Incident', 'Notice', 'Median', '90th percentile', 'Last 30 days', 'Last 90 days']),
      );

      // The gap between each heading and the block right above it.
      const gaps = await page.evaluate(() =>
        [...document.querySelectorAll('main h2, main h3')]
          .filter((h) => h.getClientRects().length > 0 && h.previousElementSibling)
          .map((h) => ({ heading: h.textContent ?? '', gapPx: h.getBoundingClientRect().top - h.previousElementSibling!.getBoundingClientRect().bottom })),
      );
      expect(gaps.filter((g) => g.gapPx < 12)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('at 390 px: labels at least 11 px, none clipped, nothing scrolls sideways', async () => {
    const { context, page, problems } = await watchedPage(browser, { viewport: MOBILE_VIEWPORT });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      await screenshot(page, 'reliability-390-after');
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      const labels = await chartLabels(page);
      expect(new Set(labels.map((l) => l.chart))).toEqual(new Set(CHART_IDS));
      expect(labels.filter((l) => l.renderedPx < 11)).toEqual([]);
      expect(labels.filter((l) => l.clipped)).toEqual([]);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it.each([600, 1024])('at %i px, between the layouts: every chart drawn, labels whole and at least 11 px', async (width) => {
    const { context, page } = await watchedPage(browser, { viewport: { width, height: 800 } });
    try {
      await page.goto(`${service.url}/reliability`, { waitUntil: 'load' });
      const labels = await chartLabels(page);
      expect(new Set(labels.map((l) => l.chart))).toEqual(new Set(CHART_IDS));
      expect(labels.filter((l) => l.clipped)).toEqual([]);
      expect(labels.filter((l) => l.renderedPx < 11)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
