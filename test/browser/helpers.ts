/** Real Chromium for the browser tests: launching Debian's package, pages that record what went wrong, screenshots. */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's chromium; never a browser downloaded by `playwright install`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The network here is closed: without the background-networking flags Chromium keeps calling
 * Google, and those refused connections get in the way of the pages under test.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** A phone's viewport, for the mobile screenshots. */
export const MOBILE_VIEWPORT = { width: 390, height: 844 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export type CspViolation = { page: string; directive: string; blockedUri: string; sample: string };

/** What a page did that it should not have: each list should stay empty. */
export type PageProblems = {
  consoleErrors: string[];
  pageErrors: string[];
  cspViolations: CspViolation[];
  dialogs: string[];
};

export type WatchedPage = { context: BrowserContext; page: Page; problems: PageProblems };

/**
 * Reports every `securitypolicyviolation` event, in every frame, to the test through a binding
 * (a binding outlives navigations, unlike a variable on the page).
 */
const REPORT_CSP_VIOLATIONS = `
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__statuswatchCspViolation?.({ directive: e.effectiveDirective, blockedUri: e.blockedURI, sample: e.sample || '' });
  }, true);
`;

/** A fresh context and page that records console errors, uncaught errors, CSP violations and dialogs (which it dismisses). */
export async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] };
  await context.exposeBinding('__statuswatchCspViolation', (source, v: Omit<CspViolation, 'page'>) => {
    problems.cspViolations.push({ page: source.frame.url(), ...v });
  });
  await context.addInitScript(REPORT_CSP_VIOLATIONS);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.pageErrors.push(String(error)));
  page.on('dialog', (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => {});
  });
  return { context, page, problems };
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The page as it is, light and dark, then on a phone: `<name>-light.png`, `-dark.png`, `-mobile.png`. Leaves it as it found it. */
export async function screenshotLooks(page: Page, name: string): Promise<string[]> {
  const viewport = page.viewportSize();
  const paths: string[] = [];
  await page.emulateMedia({ colorScheme: 'light' });
  paths.push(await screenshot(page, `${name}-light`));
  await page.emulateMedia({ colorScheme: 'dark' });
  paths.push(await screenshot(page, `${name}-dark`));
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(MOBILE_VIEWPORT);
  paths.push(await screenshot(page, `${name}-mobile`));
  if (viewport) await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme: null });
  return paths;
}

/** A loopback port nothing listens on now, for a service that must know its own URL before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** An instant as the vendor writes it, `minutesAgo` before now (the service runs on the real clock here). */
export function vendorTime(minutesAgo: number): string {
  return new Date(Date.now() - minutesAgo * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
