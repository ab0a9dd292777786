/**
 * `/embed` as the README tells people to use it: an iframe of the suggested size on another site,
 * in real Chromium with scripts off and on. Without scripts the page used to be blank; and the
 * suggested 160 px cut off the second of two incidents going on.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ongoingIncidents, publicPagesWorld } from '../fixtures/public-pages-world.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, screenshot, watchedPage } from './helpers.ts';

/** The iframe snippet of docs/dashboard.md, as a reader would paste it: its URL's query, width, height and sandbox. */
function readmeIframe(): { query: string; width: number; height: number; sandbox: string | null } {
  const readme = readFileSync(new URL('../../docs/dashboard.md', import.meta.url), 'utf8');
  const match = /<iframe src="[^"]*\/embed(\?[^"]*)?"[^>]*width="(\d+)" height="(\d+)"[^>]*>/.exec(readme);
  if (!match) throw new Error('docs/dashboard.md has no /embed iframe snippet');
  const sandbox = /\ssandbox="([^"]*)"/.exec(match[0])?.[1] ?? null;
  return { query: match[1] ?? '', width: Number(match[2]), height: Number(match[3]), sandbox };
}

describe('/embed in an iframe of the README size', () => {
  let vendor: TestVendor;
  let service: TestService;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;
  const snippet = readmeIframe();
  const [outage, incident] = ongoingIncidents(Date.now());

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(publicPagesWorld(Date.now()));
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    // Someone else's page (another origin), with the snippet as the README has it.
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another site</title><link rel="icon" href="data:,"></head><body>` +
          `<iframe id="embed" src="${service.url}/embed${snippet.query}" title="Files status" width="${snippet.width}" height="${snippet.height}"${snippet.sandbox === null ? '' : ` sandbox="${snippet.sandbox}"`}></iframe></body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
    await service?.close();
    await vendor?.close();
  });

  /** How tall the framed page is against the iframe's own height: more would be cut off. */
  async function contentHeight(page: Page): Promise<number> {
    const frame = page.frames().find((f) => f.url().startsWith(`${service.url}/embed`));
    if (!frame) throw new Error('the iframe did not load /embed');
    return frame.evaluate(() => document.documentElement.scrollHeight);
  }

  async function expectBothIncidentsShown(embed: FrameLocator) {
    for (const shown of [outage!, incident!]) {
      const link = embed.getByRole('link', { name: shown.title });
      expect(await link.isVisible(), shown.title).toBe(true);
      expect(await link.evaluate((a) => (a as HTMLAnchorElement).href)).toBe(`${service.url}/incidents/${shown.id}`);
      expect(await link.getAttribute('target')).toBe('_blank');
    }
  }

  it('is sandboxed as the README suggests: no access to the embedding page, no navigating it', async () => {
    const granted = (snippet.sandbox ?? '').split(/\s+/);
    expect(snippet.sandbox).not.toBeNull();
    // Same-origin with scripts would let the frame remove its own sandbox; top navigation would let
    // it take over the embedding page.
    expect(granted).not.toContain('allow-same-origin');
    expect(granted.filter((g) => g.startsWith('allow-top-navigation'))).toEqual([]);
  });

  it('opens an incident in a new tab from inside the sandbox, unsandboxed', async () => {
    const { context, page, problems } = await watchedPage(browser);
    try {
      await page.goto(siteUrl, { waitUntil: 'load' });
      const embed = page.frameLocator('#embed');
      const link = embed.getByRole('link', { name: outage!.title });
      await expect.poll(() => link.isVisible()).toBe(true);
      const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
      await tab.waitForLoadState('load');
      expect(tab.url()).toBe(`${service.url}/incidents/${outage!.id}`);
      // The tab escaped the sandbox: a page that inherited it would have the opaque origin "null".
      expect(await tab.evaluate(() => window.origin)).toBe(service.url);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('shows the state and both incidents going on without scripts, nothing cut off', async () => {
    expect(snippet.query).toBe('?service=Files');
    const { context, page, problems } = await watchedPage(browser, { javaScriptEnabled: false });
    try {
      await page.goto(siteUrl, { waitUntil: 'load' });
      await screenshot(page, 'embed-noscript-after');
      const embed = page.frameLocator('#embed');
      expect(await embed.getByRole('link', { name: 'Service outage' }).isVisible()).toBe(true);
      expect(await embed.locator('.widget').getAttribute('data-state')).toBe('outage');
      expect(await embed.locator('li.service').textContent()).toBe('FilesOutage');
      await expectBothIncidentsShown(embed);
      expect(await contentHeight(page)).toBeLessThanOrEqual(snippet.height);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('shows the same with scripts, drawn by the element, within the same height', async () => {
    const { context, page, problems } = await watchedPage(browser);
    try {
      await page.goto(siteUrl, { waitUntil: 'load' });
      const embed = page.frameLocator('#embed');
      await expect.poll(() => embed.locator('statuswatch-widget [part~="widget"]').getAttribute('data-state')).toBe('outage');
      await expectBothIncidentsShown(embed);
      // The server's copy is still in the page, hidden by the shadow root: each title shows once.
      expect(await embed.getByRole('link', { name: outage!.title }).count()).toBe(1);
      expect(await contentHeight(page)).toBeLessThanOrEqual(snippet.height);
      expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });
});
