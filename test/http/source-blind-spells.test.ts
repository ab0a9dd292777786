/**
 * A watched page's past blind spells in its track record (both projects: a SQLite file on Node,
 * D1 in workerd; real HTTP on loopback to a simulated page in the Statuspage format, whose faults
 * make it fail; a test clock): once the page is read again, the time it went unread counts as no
 * data on `/api/reliability?source=` and on `/reliability?source=`, not as observed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const T0 = Date.UTC(2026, 10, 2, 9);

type WindowJson = { days: number; observed_ms: number; availability: number | null; downtime_ms: number };

describe("a watched page's past blind spells", () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let service: TestApp;
  let sourceId: string;
  let nowMs = T0;

  /** Sets both clocks (ours and the page's, which dates its incidents) to `at`. */
  const at = async (atMs: number) => {
    nowMs = atMs;
    const res = await fetch(`${page.url}/_sim/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nowMs }) });
    expect(res.status).toBe(200);
  };
  const poll = async () => {
    const res = await service.admin('POST', `/api/admin/poll?source=${sourceId}`);
    expect(res.status).toBe(200);
    return res.body.sources[0].outcome;
  };

  beforeAll(async () => {
    vendor = await startTestVendor();
    page = await startTestStatuspage();
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => nowMs } });
    await at(T0);
    sourceId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
    expect(await poll()).toBe('ok');
    // A minute on, the page's incident opens: API out (impact major).
    await at(T0 + MINUTE_MS);
    expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect(await poll()).toBe('ok');
    // Then the page answers 503 for two hours: every poll in between fails.
    await page.fault({ target: '*', kind: 'status', status: 503 });
    for (const minutes of [1, 30, 61, 90, 119]) {
      await at(T0 + MINUTE_MS + minutes * MINUTE_MS);
      expect(await poll()).toBe('failed');
    }
    // Read again two hours after its last good read, the incident still open.
    await page.clearFaults();
    await at(T0 + MINUTE_MS + 2 * HOUR_MS);
    expect(await poll()).toBe('ok');
    // Asked three minutes later: read within the staleness limit, so not blind now.
    await at(T0 + MINUTE_MS + 2 * HOUR_MS + 3 * MINUTE_MS);
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close()]);
  });

  it('counts the two hours it went unread as no data on /api/reliability?source=, not as observed', async () => {
    const track = (await service.get(`/api/reliability?source=${sourceId}`)).body;
    const services = track.availability.services as { service: string; windows: WindowJson[] }[];
    expect(services.map((s) => s.service).sort()).toEqual(['API', 'Database', 'Website']);
    // Watched for 2 h 4 min, of which 2 h unread: 4 minutes observed, in every window of every service.
    for (const s of services) for (const w of s.windows) expect([s.service, w.days, w.observed_ms]).toEqual([s.service, w.days, 4 * MINUTE_MS]);
    // API was out the whole time since its incident opened: the 3 minutes read after the spell, of the
    // 4 observed. The two hours unread are counted neither as down nor as up.
    const api = services.find((s) => s.service === 'API')!;
    expect(api.windows[0]).toMatchObject({ downtime_ms: 3 * MINUTE_MS, availability: 0.25 });
    const website = services.find((s) => s.service === 'Website')!;
    expect(website.windows[0]).toMatchObject({ downtime_ms: 0, availability: 1 });
    // The month so far: the same 4 minutes observed.
    expect(track.months.at(-1).observed_ms).toBe(4 * MINUTE_MS);
  });

  it('says the same on the /reliability?source= page', async () => {
    const res = await service.fetch(`${service.url}/reliability?source=${sourceId}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const apiRow = html.slice(html.indexOf('<th scope="row">API</th>'));
    expect(apiRow.slice(0, apiRow.indexOf('</tr>'))).toContain('<td>25.000%</td>');
    // Counted as observed, the blind time would have read 0.806% (123 of 124 minutes down).
    expect(html).not.toContain('0.806%');
  });
});
