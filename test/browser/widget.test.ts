/**
 * The embeddable widget in real Chromium, on a page served from another origin (localhost vs the
 * service's 127.0.0.1): the <statuswatch-widget> element and the `/embed` iframe both show the
 * incident going on in Files, read across origins, and link back to the dashboard.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, screenshot, vendorTime, watchedPage, type WatchedPage } from './helpers.ts';

const filesOutage = rawIncident({
  id: 4201,
  title: 'Some files fail to upload',
  type: 'outage',
  status: 'active',
  services: ['Files'],
  date_created: vendorTime(60),
  date_updated: vendorTime(20),
  notes: [{ body: '<p>Uploads fail for some workspaces.</p>', date_created: vendorTime(60) }],
});

/** Someone else's page: the widget's documented snippet, and the embed page in an iframe. */
function embeddingPage(serviceUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Another site</title><link rel="icon" href="data:,"></head>
<body>
<h1>Another site</h1>
<script src="${serviceUrl}/widget.js" async></script>
<statuswatch-widget services="Files"></statuswatch-widget>
<iframe id="embed" title="Service status" src="${serviceUrl}/embed?service=Files" width="420" height="200"></iframe>
</body>
</html>
`;
}

describe('widget in Chromium, on another origin', () => {
  let vendor: TestVendor;
  let service: TestService;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;
  let current: WatchedPage | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([filesOutage]);
    service = await startTestService(vendor.url);
    expect((await service.poll()).outcome).toBe('ok');
    site = createServer((req, res) => {
      if (req.url !== '/') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(embeddingPage(service.url));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // Same machine, another host name: another origin to the browser.
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
    await service?.close();
    await vendor?.close();
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  it('renders the element and the embed iframe with the incident going on in Files', async () => {
    current = await watchedPage(browser);
    const { page, problems } = current;
    const widgetRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(service.url)) widgetRequests.push(`${request.frame().url()} -> ${request.url()}`);
    });
    await page.goto(`${siteUrl}/`, { waitUntil: 'load' });
    expect(new URL(page.url()).origin).not.toBe(new URL(service.url).origin);

    // The element: open shadow DOM, whose root part says the state once the data has come.
    const widget = page.locator('statuswatch-widget');
    const root = widget.locator('[part~="widget"]');
    await expect.poll(() => root.getAttribute('data-state')).toBe('outage');
    expect(await root.getAttribute('data-stale')).toBeNull();
    expect(await widget.locator('[part~="headline"]').textContent()).toBe('Service outage');
    expect(await widget.locator('[part~="headline"]').getAttribute('href')).toBe(`${service.url}/`);
    const files = widget.locator('[part~="service"]');
    expect(await files.count()).toBe(1);
    expect(await files.getAttribute('data-state')).toBe('outage');
    expect(await files.textContent()).toBe('FilesOutage');
    const incident = widget.locator('[part~="incident"]');
    expect(await incident.getAttribute('data-id')).toBe('4201');
    const incidentLink = incident.getByRole('link', { name: filesOutage.title });
    expect(await incidentLink.getAttribute('href')).toBe(`${service.url}/incidents/4201`);
    expect(await incidentLink.getAttribute('target')).toBe('_blank');

    // The embed page in an iframe: the same element, its own page, framed by another origin.
    const embed = page.frameLocator('#embed');
    const embedRoot = embed.locator('statuswatch-widget [part~="widget"]');
    await expect.poll(() => embedRoot.getAttribute('data-state')).toBe('outage');
    expect(await embed.locator('statuswatch-widget [part~="headline"]').textContent()).toBe('Service outage');
    expect(await embed.getByRole('link', { name: filesOutage.title }).getAttribute('href')).toBe(`${service.url}/incidents/4201`);

    // Both read their data from the service, across origins: the element from the page, the iframe from itself.
    expect(widgetRequests).toContain(`${siteUrl}/ -> ${service.url}/widget.json?service=Files`);
    expect(widgetRequests).toContain(`${service.url}/embed?service=Files -> ${service.url}/widget.json?service=Files`);

    await screenshot(page, 'widget-other-origin-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'widget-other-origin-dark');
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it('shows a service name never seen as an unknown service in grey, never as operational', async () => {
    current = await watchedPage(browser);
    const { page, problems } = current;
    await page.goto(`${service.url}/embed?service=Nope`, { waitUntil: 'load' });
    const widget = page.locator('statuswatch-widget');
    const root = widget.locator('[part~="widget"]');
    await expect.poll(() => root.getAttribute('data-state')).toBe('unknown');
    expect(await widget.locator('[part~="headline"]').textContent()).toBe('Unknown service');
    const nope = widget.locator('[part~="service"]');
    expect(await nope.getAttribute('data-state')).toBe('unknown');
    expect(await nope.textContent()).toBe('NopeUnknown service');
    // The dot is the grey of "unknown" (#59636e, dark enough to read as the label's text too),
    // not the green of ok (#1a7f37 in the light theme).
    const dot = await widget.locator('[part~="headline"] .dot').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(dot).toBe('rgb(89, 99, 110)');
    // Opened on its own, the embed page has the browser ask for /favicon.ico: no 404 in the console.
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
