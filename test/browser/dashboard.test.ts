/**
 * The dashboard in real Chromium, against the real service polling the simulated vendor: the
 * state now, search, an incident's changes, and a hostile note body that must stay inert.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { launchBrowser, screenshotLooks, vendorTime, watchedPage, type WatchedPage } from './helpers.ts';

/** The one incident going on: what `/` must show. */
const filesOutage = rawIncident({
  id: 4101,
  title: 'Some files fail to upload',
  type: 'outage',
  status: 'active',
  services: ['Files'],
  date_created: vendorTime(90),
  date_updated: vendorTime(30),
  notes: [
    { body: '<p>Uploads larger than 5 MB fail for some workspaces.</p>', date_created: vendorTime(90) },
    { body: '<p>We have found the cause and are deploying a fix.</p>', date_created: vendorTime(30) },
  ],
});

/** "quokka" is in a note body only: search must read notes, not just titles. */
const SEARCH_WORD = 'quokka';
const searchable = rawIncident({
  id: 4102,
  title: 'Search results were delayed',
  type: 'incident',
  status: 'resolved',
  services: ['Search'],
  date_created: vendorTime(3 * 24 * 60),
  date_updated: vendorTime(3 * 24 * 60 - 60),
  notes: [
    { body: '<p>Some results are missing.</p>', date_created: vendorTime(3 * 24 * 60) },
    { body: `<p>The ${SEARCH_WORD} indexer has caught up.</p>`, date_created: vendorTime(3 * 24 * 60 - 60) },
  ],
});

/** Edited by the vendor between two polls: a new title and a reworded note. */
const editedBefore = rawIncident({
  id: 4103,
  title: 'Calls drop after a minute',
  type: 'incident',
  status: 'resolved',
  services: ['Calls'],
  date_created: vendorTime(2 * 24 * 60),
  date_updated: vendorTime(2 * 24 * 60 - 45),
  notes: [
    { body: '<p>Calls end after about a minute.</p>', date_created: vendorTime(2 * 24 * 60) },
    { body: '<p>Calls last as long as they should again.</p>', date_created: vendorTime(2 * 24 * 60 - 45) },
  ],
});
const editedAfter = rawIncident({
  ...editedBefore,
  title: 'Calls drop after a minute for some users',
  notes: [{ ...editedBefore.notes[0]!, body: '<p>Some calls end after about a minute.</p>' }, editedBefore.notes[1]!],
});

/** Every way a note could try to run script: a script element, an event handler, a javascript: link. */
const HOSTILE_NOTE =
  '<p>Investigating reports.</p><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">' +
  '<p><a href="javascript:window.__pwned=3">click</a></p>';
const hostile = rawIncident({
  id: 4104,
  title: 'Connections are slow',
  type: 'incident',
  status: 'resolved',
  services: ['Connections'],
  date_created: vendorTime(24 * 60),
  date_updated: vendorTime(24 * 60 - 30),
  notes: [
    { body: HOSTILE_NOTE, date_created: vendorTime(24 * 60) },
    { body: '<p>Connections are back to normal.</p>', date_created: vendorTime(24 * 60 - 30) },
  ],
});

describe('dashboard in Chromium', () => {
  let vendor: TestVendor;
  let service: TestService;
  let browser: Browser;
  let current: WatchedPage | undefined;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents([filesOutage, searchable, editedBefore, hostile]);
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

  const open = async () => (current = await watchedPage(browser));

  it('shows the incident going on, with its script allowed and nothing refused', async () => {
    const { page, problems } = await open();
    const response = await page.goto(`${service.url}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('1 incident going on');
    const card = page.locator('article.incident-card', { has: page.getByRole('link', { name: filesOutage.title }) });
    expect(await card.count()).toBe(1);
    expect(await card.textContent()).toContain('We have found the cause and are deploying a fix.');
    expect(await card.getByRole('link', { name: filesOutage.title }).getAttribute('href')).toBe('/incidents/4101');
    // public/app.js is a file from 'self', the one script the policy allows: it ran if times are in the reader's zone.
    await expect.poll(() => page.locator('time[data-local]').count()).toBeGreaterThan(0);

    await screenshotLooks(page, 'dashboard-status');

    // Keyboard focus on today's Files bar shows its tooltip: the day's label, drawn by the CSS.
    const today = page
      .locator('.service-row', { has: page.locator('.service-name', { hasText: /^Files$/ }) })
      .locator('li.day')
      .last();
    await today.focus();
    const tooltip = await today.evaluate((el) => {
      const after = getComputedStyle(el, '::after');
      return { display: after.display, content: after.content };
    });
    expect(tooltip.display).toBe('block');
    expect(tooltip.content).toContain(`${filesOutage.title} (outage)`);
    await screenshotLooks(page, 'dashboard-status-bar-focused');

    // A reload, as the crowd does during an outage: the browser revalidates its copy, the server
    // answers 304, and the page it keeps shows the same, its script run again under the same policy.
    const reloaded = await page.reload({ waitUntil: 'load' });
    const etag = await response?.headerValue('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(await reloaded?.request().headerValue('if-none-match')).toBe(etag);
    // Chromium reports the kept copy's 200; what came over the wire the second time was headers alone.
    expect((await response?.request().sizes())?.responseBodySize).toBeGreaterThan(10_000);
    expect((await reloaded?.request().sizes())?.responseBodySize).toBe(0);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('1 incident going on');
    await expect.poll(() => page.locator('time[data-local]').count()).toBeGreaterThan(0);
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it('finds an incident by a word that only its note has', async () => {
    const { page, problems } = await open();
    await page.goto(`${service.url}/incidents`, { waitUntil: 'load' });
    await page.getByLabel('Search titles and notes').fill(SEARCH_WORD);
    await Promise.all([page.waitForURL(/\/incidents\?/), page.getByRole('button', { name: 'Show incidents' }).click()]);

    expect(new URL(page.url()).searchParams.get('q')).toBe(SEARCH_WORD);
    expect(await page.locator('#results-title').textContent()).toBe('1 incident matching, newest first');
    const result = page.getByRole('link', { name: searchable.title });
    expect(await result.count()).toBe(1);
    expect(await page.getByRole('link', { name: filesOutage.title }).count()).toBe(0);
    // The form shows back what was searched for.
    expect(await page.getByLabel('Search titles and notes').inputValue()).toBe(SEARCH_WORD);

    await screenshotLooks(page, 'dashboard-search');
    await Promise.all([page.waitForURL(/\/incidents\/4102$/), result.click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(searchable.title);
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it('tells an edit by the vendor on the incident page, after a second poll', async () => {
    await vendor.setIncidents([filesOutage, searchable, editedAfter, hostile]);
    expect((await service.poll()).outcome).toBe('ok');

    const { page, problems } = await open();
    await page.goto(`${service.url}/incidents/4103`, { waitUntil: 'load' });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(editedAfter.title);

    const changes = page.locator('.change-list');
    expect(await changes.textContent()).toContain(`Title changed from “${editedBefore.title}” to “${editedAfter.title}”.`);
    expect(await changes.getByText('Note edited.').count()).toBe(1);
    // Before and after are behind a disclosure: open it as a reader would.
    await changes.getByText('Show the text before and after').click();
    const quotes = changes.locator('details[open] blockquote');
    expect(await quotes.allTextContents()).toEqual(['Calls end after about a minute.', 'Some calls end after about a minute.']);
    // Newest first: the edited note is the older one.
    expect(await page.locator('.timeline .note-body').allTextContents()).toEqual([
      'Calls last as long as they should again.',
      'Some calls end after about a minute.',
    ]);

    await screenshotLooks(page, 'dashboard-incident-edited');
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });

  it('renders a hostile note body inert: no script, no handler, no javascript: link runs', async () => {
    const { context, page, problems } = await open();
    const popups: string[] = [];
    context.on('page', (popup) => popups.push(popup.url()));
    await page.goto(`${service.url}/incidents/4104`, { waitUntil: 'load' });

    const note = page.locator('.note-body', { hasText: 'Investigating reports.' });
    expect(await note.count()).toBe(1);
    // What the sanitiser left: no script, no image, no handler attribute, no javascript: URL.
    expect(await page.locator('main script, main img, main [onerror], main a[href^="javascript:" i]').count()).toBe(0);
    const link = note.getByText('click');
    if ((await link.count()) > 0) await link.click();
    // A javascript: URL would run by now; give it a moment to prove it does not.
    await page.waitForTimeout(250);

    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(page.url()).toBe(`${service.url}/incidents/4104`);
    expect(popups).toEqual([]);

    await screenshotLooks(page, 'dashboard-incident-hostile');
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    // Nothing even tried: a CSP report would mean the sanitiser let something through and only the policy stopped it.
    expect(problems).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [], dialogs: [] });
  });
});
