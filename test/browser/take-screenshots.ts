/**
 * Pictures of the public pages, to compare before and after a change to them: the dashboard on a
 * 390 px phone, /reliability at 1,280 and 390 px, and /embed in an iframe with scripts off, at the
 * README's suggested size. Not a test (it asserts nothing): run it once on the old code and once on
 * the new, and compare the files.
 *
 *     npx tsx test/browser/take-screenshots.ts before   # or: after (the default)
 *     npx tsx test/browser/take-screenshots.ts after --readme
 *
 * Writes test-results/screenshots/issue12-<page>-<phase>.png and prints the paths; with --readme,
 * also the README's picture of the dashboard at 1,280 px (public/screenshots/dashboard.png).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicPagesWorld } from '../fixtures/public-pages-world.ts';
import { startTestService, startTestVendor } from '../helpers/service.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot } from './helpers.ts';

const phase = process.argv[2] ?? 'after';
const README_PICTURE = fileURLToPath(new URL('../../public/screenshots/dashboard.png', import.meta.url));
const DESKTOP = { width: 1280, height: 800 };

/** The iframe snippet of docs/dashboard.md, as a reader would paste it. */
function readmeIframe(): { width: number; height: number } {
  const readme = readFileSync(new URL('../../docs/dashboard.md', import.meta.url), 'utf8');
  const match = /<iframe src="[^"]*\/embed[^"]*"[^>]*width="(\d+)" height="(\d+)"/.exec(readme);
  if (!match) throw new Error('docs/dashboard.md has no /embed iframe snippet');
  return { width: Number(match[1]), height: Number(match[2]) };
}

const vendor = await startTestVendor({ historyWindowDays: 100_000 });
await vendor.setIncidents(publicPagesWorld(Date.now()));
const service = await startTestService(vendor.url);
const site = createServer((_req, res) => {
  const { width, height } = readmeIframe();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Another site</title><link rel="icon" href="data:,"></head>` +
      `<body><iframe src="${service.url}/embed?service=Files" title="Files status" width="${width}" height="${height}"></iframe></body></html>`,
  );
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const browser = await launchBrowser();
const paths: string[] = [];
try {
  const poll = await service.poll();
  if (poll.outcome !== 'ok') throw new Error(`poll: ${JSON.stringify(poll)}`);

  const shoot = async (name: string, url: string, options: Parameters<typeof browser.newContext>[0]) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    paths.push(await screenshot(page, `issue12-${name}-${phase}`));
    await context.close();
  };
  await shoot('dashboard-390', `${service.url}/`, { viewport: MOBILE_VIEWPORT });
  await shoot('reliability-1280', `${service.url}/reliability`, { viewport: DESKTOP });
  await shoot('reliability-390', `${service.url}/reliability`, { viewport: MOBILE_VIEWPORT });
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
  await shoot('embed-noscript', siteUrl, { viewport: { width: 480, height: 400 }, javaScriptEnabled: false });
  if (process.argv.includes('--readme')) {
    const context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(`${service.url}/`, { waitUntil: 'load' });
    await page.screenshot({ path: README_PICTURE, fullPage: true });
    paths.push(README_PICTURE);
    await context.close();
  }
} finally {
  await browser.close();
  site.close();
  await service.close();
  await vendor.close();
}
for (const path of paths) console.log(path);
