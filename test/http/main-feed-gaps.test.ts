/**
 * The time statuswatch did not read the vendor's feed at all (its process was down, or no poll
 * ran) is no data in the vendor's track record, as a blind spell of failing reads is (both
 * projects: a SQLite file on Node, D1 in workerd; real HTTP to the simulated vendor; a test clock).
 * No read failed, so no monitor episode was told: before, the two hours counted as observed. And
 * the vendor's record speaks from its own oldest incident, not from a watched page's older one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** 2026-11-02 09:00 UTC: 01:00 at the vendor (UTC-8). */
const T0 = Date.UTC(2026, 10, 2, 9);

/** Files out since 00:00 at the vendor, an hour before the first read, and still out. */
const filesOutage = (id: number) =>
  rawIncident({
    id,
    type: 'outage',
    status: 'active',
    services: ['Files'],
    date_created: '2026-11-02T00:00:00-08:00',
    date_updated: '2026-11-02T00:00:00-08:00',
    notes: [{ body: '<p>Files cannot be uploaded.</p>', date_created: '2026-11-02T00:00:00-08:00' }],
  });

type WindowJson = { days: number; observed_ms: number; availability: number | null; downtime_ms: number };
type TrackJson = { availability: { services: { service: string; windows: WindowJson[] }[] } };
const filesOf = (track: TrackJson) => track.availability.services.find((s) => s.service === 'Files')!;

describe('a gap between two good reads of the main feed', () => {
  let vendor: TestVendor;
  let service: TestApp;
  let nowMs = T0;

  beforeAll(async () => {
    vendor = await startTestVendor();
    // Files out since an hour before the first read, and still out at the last.
    await vendor.setIncidents([filesOutage(77)]);
    service = await startTestApp(vendor.url, { clock: { now: () => nowMs } });
    expect((await service.poll()).run.outcome).toBe('ok');
    // Nothing polls for two hours: the process was down. Then it reads the feed again.
    nowMs = T0 + 2 * HOUR_MS;
    expect((await service.poll()).run.outcome).toBe('ok');
    nowMs = T0 + 2 * HOUR_MS + MINUTE_MS;
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('leaves the two hours unread out of the time observed, and out of the downtime', async () => {
    const track = (await service.get('/api/reliability')).body;
    const files = filesOf(track);
    // The archive speaks from the outage's start, an hour before the first read: that hour and the
    // minute after the last read are observed; the two hours between the reads are not.
    for (const w of files.windows) expect([w.days, w.observed_ms, w.downtime_ms]).toEqual([w.days, HOUR_MS + MINUTE_MS, HOUR_MS + MINUTE_MS]);
    expect(track.months.at(-1).observed_ms).toBe(HOUR_MS + MINUTE_MS);
  });

  it('records no spell for a good read within the limit after the last', async () => {
    nowMs = T0 + 2 * HOUR_MS + 2 * MINUTE_MS;
    expect((await service.poll()).run.outcome).toBe('ok');
    nowMs = T0 + 2 * HOUR_MS + 3 * MINUTE_MS;
    const track = (await service.get('/api/reliability')).body;
    const files = filesOf(track);
    expect(files.windows[0]!.observed_ms).toBe(HOUR_MS + 3 * MINUTE_MS);
  });
});

describe('a gap before a poll that finds the feed as the last one read it', () => {
  let vendor: TestVendor;
  let service: TestApp;
  let nowMs = T0;

  beforeAll(async () => {
    vendor = await startTestVendor();
    await vendor.setIncidents([filesOutage(79)]);
    service = await startTestApp(vendor.url, { clock: { now: () => nowMs } });
    expect((await service.poll()).run.outcome).toBe('ok');
    // Seven minutes unread: past the staleness limit, yet soon enough that the poll finds the
    // bodies its last diff read and records its run without diffing again.
    nowMs = T0 + 7 * MINUTE_MS;
    const second = await service.poll();
    expect([second.run.outcome, second.unchanged]).toEqual(['ok', true]);
    nowMs = T0 + 8 * MINUTE_MS;
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('leaves the seven minutes unread out of the time observed', async () => {
    const files = filesOf((await service.get('/api/reliability')).body);
    // Observed: the hour before the first read the archive speaks for, and the minute since the last.
    for (const w of files.windows) expect([w.days, w.observed_ms, w.downtime_ms]).toEqual([w.days, HOUR_MS + MINUTE_MS, HOUR_MS + MINUTE_MS]);
  });
});

describe("the vendor's track record beside a watched page with an older past", () => {
  let vendor: TestVendor;
  let page: TestStatuspage;
  let service: TestApp;
  let nowMs = T0;

  beforeAll(async () => {
    vendor = await startTestVendor();
    // The vendor's oldest incident began an hour before the first read.
    await vendor.setIncidents([filesOutage(78)]);
    page = await startTestStatuspage();
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => nowMs } });
    // The page's incident opened twenty days before: its past is the page's, not the vendor's.
    const pageClock = (atMs: number) =>
      fetch(`${page.url}/_sim/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nowMs: atMs }) });
    expect((await pageClock(T0 - 20 * DAY_MS)).status).toBe(200);
    expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect((await pageClock(T0)).status).toBe(200);
    const sourceId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
    expect((await service.admin('POST', `/api/admin/poll?source=${sourceId}`)).body.sources[0].outcome).toBe('ok');
    expect((await service.poll()).run.outcome).toBe('ok');
    nowMs = T0 + MINUTE_MS;
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), page?.close()]);
  });

  it("speaks from the vendor's own oldest incident, not from the page's", async () => {
    const track = (await service.get('/api/reliability')).body;
    const files = filesOf(track);
    for (const w of files.windows) expect([w.days, w.observed_ms]).toEqual([w.days, HOUR_MS + MINUTE_MS]);
  });
});
