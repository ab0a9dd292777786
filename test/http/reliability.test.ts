/** The track record through the service's app: a real SQLite file seeded with the scenario's incidents as polls at set times saw them (seed-archive.ts), a set clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const HOSTILE_SERVICE = '<img src=x onerror=alert(1)>';

/** Outage on Files, 2 h, with an update 15 min in: seen already resolved by the seeding poll. */
const filesOutage = rawIncident({
  id: 2001,
  title: 'Files unavailable',
  type: 'outage',
  status: 'resolved',
  services: ['Files'],
  date_created: '2026-10-01T03:00:00-07:00',
  date_updated: '2026-10-01T05:00:00-07:00',
  notes: [
    { body: '<p>Files are down.</p>', date_created: '2026-10-01T03:00:00-07:00' },
    { body: '<p>Rolling back.</p>', date_created: '2026-10-01T03:15:00-07:00' },
    { body: '<p>Resolved.</p>', date_created: '2026-10-01T05:00:00-07:00' },
  ],
});

const hostile = rawIncident({
  id: 2002,
  title: '<script>alert("title")</script>',
  status: 'resolved',
  services: [HOSTILE_SERVICE],
  date_created: '2026-08-20T01:00:00-07:00',
  date_updated: '2026-08-20T02:00:00-07:00',
  notes: [
    { body: '<p>Looking.</p>', date_created: '2026-08-20T01:00:00-07:00' },
    { body: '<p>Fixed.</p>', date_created: '2026-08-20T02:00:00-07:00' },
  ],
});

/** Opened after the archive was seeded: the second poll sees it 2 minutes after the vendor's start. */
const SEARCH_START = Date.parse('2026-10-08T12:00:00Z');
const searchIncident = rawIncident({
  id: 2003,
  title: 'Search is slow',
  status: 'active',
  services: ['Search'],
  date_created: '2026-10-08T05:00:00-07:00',
  date_updated: '2026-10-08T05:00:00-07:00',
  notes: [{ body: '<p>Investigating.</p>', date_created: '2026-10-08T05:00:00-07:00' }],
});

const NOW = Date.UTC(2026, 9, 10, 15, 0, 0);

describe('/api/reliability and /reliability', () => {
  let service: TestApp;
  const clock = { ms: Date.UTC(2026, 9, 5), now: () => clock.ms };
  const seed = (incidents: Parameters<typeof seedArchive>[1]) => seedArchive(service.store, incidents, { now: clock.ms });

  /**
   * The reads of a poller running all along between two seeded polls, each finding the feed
   * unchanged: without them the days between were unread, no data in the track record.
   */
  const readUnchangedUntil = async (untilMs: number) => {
    for (let at = clock.ms + 4 * MINUTE; at < untilMs; at += 4 * MINUTE) {
      await service.store.recordPollRun({ id: `read-${at}`, startedAt: at, finishedAt: at, outcome: 'ok', sources: [], changes: {} }, []);
    }
    clock.ms = untilMs;
  };

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL, { clock });
    expect((await seed([filesOutage, hostile])).events.length).toBeGreaterThan(0);
    await readUnchangedUntil(SEARCH_START + 2 * MINUTE);
    expect((await seed([filesOutage, hostile, searchIncident])).events.map((e) => e.type)).toEqual(['incident.created']);
    await readUnchangedUntil(NOW);
    // Still reading the feed at NOW: a last read days old would make the days since "no data".
    expect((await seed([filesOutage, hostile, searchIncident])).outcome).toBe('ok');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers the figures as JSON: availability per service and window, and twelve months', async () => {
    const { status, body } = await service.get('/api/reliability');
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, generated_at: '2026-10-10T15:00:00.000Z' });
    expect(body.availability.partial_outage_weight).toBe(0.3);
    expect(body.availability.window_days).toEqual([30, 90]);

    const windowOf = (name: string, days: number) =>
      body.availability.services.find((s: { service: string }) => s.service === name).windows.find((w: { days: number }) => w.days === days);
    expect(windowOf('Files', 30)).toEqual({
      days: 30,
      start_at: new Date(NOW - 30 * DAY).toISOString(),
      end_at: '2026-10-10T15:00:00.000Z',
      availability: 1 - (2 * HOUR) / (30 * DAY),
      availability_percent: 99.722,
      observed_ms: 30 * DAY,
      downtime_ms: 2 * HOUR,
      outage_ms: 2 * HOUR,
      partial_ms: 0,
      incidents: 1,
    });
    // Still going on: counted until now, as a partial outage.
    expect(windowOf('Search', 30)).toMatchObject({ outage_ms: 0, partial_ms: NOW - SEARCH_START, downtime_ms: Math.round(0.3 * (NOW - SEARCH_START)) });
    expect(windowOf('Messaging', 90)).toMatchObject({ availability: 1, availability_percent: 100, incidents: 0 });
    expect(windowOf(HOSTILE_SERVICE, 90)).toMatchObject({ partial_ms: HOUR, incidents: 1 });
    expect(windowOf(HOSTILE_SERVICE, 30)).toMatchObject({ partial_ms: 0, incidents: 0 });

    expect(body.months.map((m: { month: string }) => m.month)).toEqual([
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
    ]);
    expect(body.months.at(-1)).toEqual({
      month: '2026-10',
      start_at: '2026-10-01T00:00:00.000Z',
      end_at: '2026-11-01T00:00:00.000Z',
      // The feed was read throughout: all of the month up to now.
      observed_ms: NOW - Date.UTC(2026, 9, 1),
      incidents: { total: 2, outage: 1, incident: 1, notice: 0, other: 0 },
      time_to_resolve: { count: 1, median_ms: 2 * HOUR, p90_ms: 2 * HOUR, ongoing: 1 },
      // The Search incident has only its opening note: no update yet.
      time_to_first_update: { count: 1, median_ms: 15 * MINUTE, p90_ms: 15 * MINUTE },
      // The Files outage came with the seeding poll: no detection time.
      detection_lag: { count: 1, median_ms: 2 * MINUTE, p90_ms: 2 * MINUTE },
    });
    expect(body.months.map((m: { incidents: { total: number } }) => m.incidents.total)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]);
    // The archive speaks from its oldest incident, 2026-08-20 08:00 UTC: the months before have no
    // data, not zero incidents.
    expect(body.months.map((m: { observed_ms: number }) => m.observed_ms)).toEqual([
      ...Array(9).fill(0),
      Date.UTC(2026, 8, 1) - Date.UTC(2026, 7, 20, 8),
      30 * DAY,
      NOW - Date.UTC(2026, 9, 1),
    ]);
  });

  it('renders the page: SVG charts with titles, the figures in tables, vendor text escaped', async () => {
    const res = await service.fetch(`${service.url}/reliability`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("style-src 'self'");
    const html = await res.text();
    expect(html).toContain('/charts.css');
    // Five charts, each drawn for three widths (the stylesheet shows one).
    expect(html.match(/<svg [^>]*role="img" aria-labelledby="chart-[a-z-]+-title chart-[a-z-]+-desc"/g)).toHaveLength(15);
    expect(html).toContain('<title id="chart-incidents-wide-title">Incidents per month, by type</title>');
    // At most two incidents a month: the count axis reads 0, 1, 2, never half an incident.
    const incidentsChart = /<svg [^>]*aria-labelledby="chart-incidents-wide-title[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    const ticks = [...incidentsChart.matchAll(/<text class="chart-label"[^>]*text-anchor="end">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toEqual(['0', '1', '2']);
    // Availability (which also holds the downtime the bar chart draws), then one per month chart.
    expect(html.match(/<table class="chart-table">/g)?.length).toBe(5);
    // The availability table and the methods, in words.
    expect(html).toMatch(/<th scope="row">Files<\/th><td>99\.722%<\/td><td>2 h<\/td>/);
    expect(html).toContain('at 30% of its');
    // The table scrolls sideways on a phone: reachable by keyboard, and named.
    expect(html).toContain('<section class="chart-table-wrap" tabindex="0" aria-label="Availability table, scrolls sideways">');
    expect(html).not.toContain(HOSTILE_SERVICE);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/style="/);
  });

  it('serves the JSON with an ETag, and 304 while the archive has not changed', async () => {
    const first = await service.fetch(`${service.url}/api/reliability`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await service.fetch(`${service.url}/api/reliability`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });

  // Last: it changes the archive the tests above read.
  it('builds the figures again once a poll changed the archive, and once a minute has passed', async () => {
    const totalOf = async () => (await service.get('/api/reliability')).body.months.at(-1).incidents.total;
    expect(await totalOf()).toBe(2);
    clock.ms = NOW + 30_000;
    await seed([filesOutage, hostile, searchIncident, rawIncident({ id: 2004, services: ['Files'], date_created: '2026-10-10T07:00:00-07:00' })]);
    expect(await totalOf()).toBe(3);

    const ongoingSearch = async () =>
      (await service.get('/api/reliability')).body.availability.services.find((s: { service: string }) => s.service === 'Search').windows[0].partial_ms;
    const before = await ongoingSearch();
    clock.ms += 59_000;
    expect(await ongoingSearch()).toBe(before);
    clock.ms += 2_000;
    expect(await ongoingSearch()).toBe(before + 61_000);
  });
});

describe('/reliability of an empty archive', () => {
  let service: TestApp;
  const clock = { now: () => NOW };

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL, { clock });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('reports every known service, with no data rather than 100%, and says why the duration charts are missing', async () => {
    const { body } = await service.get('/api/reliability');
    expect(body.availability.services).toHaveLength(11);
    // Never read: nothing is known, so no availability is claimed: 100% would be a record nobody saw.
    expect(
      body.availability.services.every((s: { windows: { availability: number | null; observed_ms: number }[] }) =>
        s.windows.every((w) => w.availability === null && w.observed_ms === 0),
      ),
    ).toBe(true);
    expect(body.months.every((m: { incidents: { total: number }; observed_ms: number }) => m.incidents.total === 0 && m.observed_ms === 0)).toBe(true);

    const html = await (await service.fetch(`${service.url}/reliability`)).text();
    // No data is shown as no data: no chart, no "no downtime", no count of 0 incidents, and no
    // reason that assumes there were incidents to count.
    expect(html.match(/<svg /g)).toBeNull();
    expect(html.match(/<p class="muted chart-empty">No data: the archive has not seen any of this time/g)).toHaveLength(5);
    expect(html).not.toContain('No service had downtime');
    expect(html).not.toContain('<td>0</td>');
    expect(html).not.toContain('every incident so far was recorded');
    expect(html.match(/<td>no data<\/td>/g)).toHaveLength(11 * 5);
    expect(html).not.toContain('<td>none</td>');
  });
});
