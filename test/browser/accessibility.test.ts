/**
 * axe-core over every page a user or an admin sees, in real Chromium at 1,280 px (light) and 390 px (dark):
 * the public pages while an outage goes on, while the reads fail but the feed is not yet stale,
 * while blind, and before anything was ever read; the admin pages (each kind of subscription
 * form, every list and one of each item, the app and the directory) with an outage and while
 * blind. Any violation fails the test, named by rule, page and element.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_FORM_KINDS } from '../../src/http/pages/subscription-kinds.tsx';
import { startSimulatedScim, type RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { startSimulatedStatuspage, type RunningSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { installApp, startAppWorld, subscribeApp, type AppWorld } from '../helpers/app-channel.ts';
import { startDemo, type RunningDemo } from '../helpers/demo-process.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';
import { ADMIN_TOKEN, startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { control } from '../sim/scim-control.ts';
import { launchBrowser, MOBILE_VIEWPORT, screenshot, vendorTime, watchedPage } from './helpers.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The desktop in the light scheme, the phone in the dark one: each scheme's colours are checked once. */
const LOOKS = [
  { name: '1280 px light', viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  { name: '390 px dark', viewport: MOBILE_VIEWPORT, colorScheme: 'dark' },
] as const;
const MINUTE_MS = 60_000;

const filesOutage = rawIncident({
  id: 5101,
  title: 'Some files fail to upload',
  type: 'outage',
  status: 'active',
  services: ['Files', 'Messaging'],
  date_created: vendorTime(90),
  date_updated: vendorTime(30),
  notes: [
    { body: '<p>Uploads larger than 5 MB fail for some workspaces.</p>', date_created: vendorTime(90) },
    { body: '<p>We are deploying a fix.</p>', date_created: vendorTime(30) },
  ],
});
const resolvedEarlier = rawIncident({
  id: 5102,
  title: 'Search results were delayed',
  type: 'incident',
  status: 'resolved',
  services: ['Search'],
  date_created: vendorTime(3 * 24 * 60),
  date_updated: vendorTime(3 * 24 * 60 - 45),
});

type Violation = { rule: string; impact: string | null; help: string; nodes: { target: string; summary: string }[] };

/** Runs axe-core in the page (through the debugging protocol, so the page's CSP does not apply) and lists what it found. */
async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type AxeNode = { target: string[]; failureSummary: string };
    type AxeResult = { id: string; impact: string | null; help: string; nodes: AxeNode[] };
    // axe is the global the script above defined.
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeResult[] }> } }).axe;
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
    }));
  });
}

/** One line per element: "rule (impact) on /path: element: what is wrong". */
function describeViolations(path: string, violations: Violation[]): string[] {
  return violations.flatMap((v) => v.nodes.map((n) => `${v.rule} (${v.impact}) on ${path}: ${n.target}: ${v.help}. ${n.summary.replaceAll('\n', ' ')}`));
}

describe('accessibility of every page (axe-core)', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let smtp: TestSmtp;
  let directory: RunningSimulatedScim;
  let statuspage: RunningSimulatedStatuspage;
  let world: AppWorld;
  let service: TestService;
  let neverRead: TestService;
  let browser: Browser;
  let nowMs = Date.now();

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver();
    smtp = await startSmtp();
    directory = await startSimulatedScim({ clock: Date.now });
    await control(directory, 'POST', '/seed', { users: 20, groups: [{ displayName: 'Support', members: 10 }] });
    world = await startAppWorld(['status-updates'], 'Demo workspace');
    service = await startTestService(vendor.url, {
      clock: { now: () => nowMs },
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'status@example.test',
        SCIM_URL: directory.url,
        SCIM_TOKEN: directory.token,
        ...world.env,
      },
    });
    await vendor.setIncidents([resolvedEarlier]);
    expect((await service.poll()).outcome).toBe('ok');
    const installation = await installApp(service.admin, world);
    await subscribeApp(service.admin, installation, world.channels['status-updates']!);
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: receiver.url })).status).toBe(201);
    expect((await service.admin('POST', '/api/subscriptions', { channel: 'email', group: 'Support', timezone: 'UTC' })).status).toBe(201);
    await vendor.setIncidents([resolvedEarlier, filesOutage]);
    await service.poll();
    await service.deliverNow();
    // A page watched beside the main feed, with its story's incident going on: the overview on `/` and its own page.
    statuspage = await startSimulatedStatuspage({ name: 'Acme Cloud' });
    expect((await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: statuspage.url })).status).toBe(201);
    statuspage.page.advance();
    expect((await service.admin('POST', '/api/admin/poll')).status).toBe(200);
    neverRead = await startTestService(NO_FEED_URL);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await neverRead?.close();
    await service?.close();
    await world?.close();
    await directory?.close();
    await statuspage?.close();
    await smtp?.close();
    await receiver?.close();
    await vendor?.close();
  });

  /** The first link on `listPath` whose path starts with `prefix` and goes further. */
  async function firstLink(page: Page, origin: string, listPath: string, prefix: string): Promise<string> {
    await page.goto(origin + listPath, { waitUntil: 'load' });
    const hrefs = await page.$$eval('a[href]', (links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
    const found = hrefs.find((href) => href.startsWith(prefix) && href.length > prefix.length && !href.slice(prefix.length).includes('/'));
    expect(found, `a link to ${prefix}… on ${listPath}`).toBeTruthy();
    return found!;
  }

  /** Opens each path at each width and gathers every violation, with screenshots kept for a look. */
  async function checkPages(origin: string, paths: (page: Page) => Promise<string[]>, options: { admin: boolean; label: string }): Promise<string[]> {
    const found: string[] = [];
    for (const { name, viewport, colorScheme } of LOOKS) {
      const { context, page, problems } = await watchedPage(browser, { viewport, colorScheme });
      try {
        if (options.admin) {
          await page.goto(`${origin}/admin`, { waitUntil: 'load' });
          await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
          await Promise.all([page.waitForURL(`${origin}/admin`), page.getByRole('button', { name: 'Sign in' }).click()]);
        }
        for (const path of await paths(page)) {
          const answer = await page.goto(origin + path, { waitUntil: 'load' });
          expect(answer?.status(), path).toBeLessThan(400);
          found.push(...describeViolations(`${path} (${options.label}, ${name})`, await axeViolations(page)));
          if (found.length > 0) await screenshot(page, `axe-${options.label}-${name}-${path}`.replaceAll(/[^a-z0-9]+/gi, '_'));
        }
        expect(problems.pageErrors, options.label).toEqual([]);
        expect(problems.cspViolations, options.label).toEqual([]);
      } finally {
        await context.close();
      }
    }
    return found;
  }

  const publicPaths = async (page: Page) => [
    '/',
    '/incidents',
    await firstLink(page, service.url, '/incidents', '/incidents/'),
    await firstLink(page, service.url, '/', '/sources/'),
    '/reliability',
    '/subscribe',
    '/embed',
    '/embed?service=Files',
    '/api/reference',
  ];

  const adminPaths = async (page: Page) => [
    '/admin',
    '/admin/subscriptions',
    await firstLink(page, service.url, '/admin/subscriptions', '/admin/subscriptions/'),
    ...SUBSCRIPTION_FORM_KINDS.map((kind) => `/admin/new-subscription?channel=${kind.channel}`),
    '/admin/deliveries',
    await firstLink(page, service.url, '/admin/deliveries', '/admin/deliveries/'),
    '/admin/polls',
    await firstLink(page, service.url, '/admin/polls', '/admin/polls/'),
    '/admin/app',
    '/admin/directory',
    await firstLink(page, service.url, '/admin/directory', '/admin/directory/'),
  ];

  it('finds nothing on the public pages or the admin pages while an outage goes on', async () => {
    const found = [
      ...(await checkPages(service.url, publicPaths, { admin: false, label: 'outage' })),
      ...(await checkPages(service.url, adminPaths, { admin: true, label: 'outage' })),
    ];
    expect(found).toEqual([]);
  });

  it('finds nothing on the public pages before anything was read, /reliability with no data', async () => {
    await neverRead.poll();
    const paths = async () => ['/', '/incidents', '/reliability', '/subscribe', '/embed', '/embed?service=Files'];
    expect(await checkPages(neverRead.url, paths, { admin: false, label: 'never-read' })).toEqual([]);
  });

  it('finds nothing while the reads fail, first within the staleness limit, then blind', async () => {
    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    nowMs += 4 * MINUTE_MS;
    expect((await service.poll()).outcome).toBe('failed');
    const asOf = await checkPages(service.url, publicPaths, { admin: false, label: 'reads-failing' });
    nowMs += 60 * MINUTE_MS;
    expect((await service.poll()).outcome).toBe('failed');
    const blind = [
      ...(await checkPages(service.url, publicPaths, { admin: false, label: 'blind' })),
      ...(await checkPages(service.url, adminPaths, { admin: true, label: 'blind' })),
    ];
    expect([...asOf, ...blind]).toEqual([]);
  });
});

describe("accessibility of the demo's catchers and simulated channels (axe-core)", () => {
  let demo: RunningDemo;
  let browser: Browser;

  beforeAll(async () => {
    demo = await startDemo(tempDir('statuswatch-axe-demo-'), 2);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it('finds nothing on the mail and webhook catchers, the on-call, Teams and Discord pages, and the channel page, once something arrived', async () => {
    const pages = [
      demo.url('Mail catcher'),
      demo.url('Webhook catcher'),
      demo.url('PagerDuty and Opsgenie'),
      demo.url('Teams'),
      demo.url('Discord'),
      demo.url('Team-chat channel'),
    ];
    // The scenario moves every 2 s: wait until a change has reached the receivers, so each page lists something.
    const deadline = Date.now() + 60_000;
    while (!(await (await fetch(demo.url('Webhook catcher'))).text()).includes('<article')) {
      expect(Date.now(), 'a webhook reached the catcher').toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 500));
    }
    const found: string[] = [];
    for (const { name, viewport, colorScheme } of LOOKS) {
      const { context, page } = await watchedPage(browser, { viewport, colorScheme });
      try {
        for (const url of pages) {
          await page.goto(url, { waitUntil: 'load' });
          found.push(...describeViolations(`${url} (${name})`, await axeViolations(page)));
          const overflowPx = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          if (overflowPx > 0) found.push(`page-overflow on ${url} (${name}): ${overflowPx} px wider than the window`);
        }
      } finally {
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });
});
