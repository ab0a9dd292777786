/**
 * A status product never says "all clear" when it does not know. Every face, through the
 * service's app, over a vendor that is first unreachable (nothing listens on its port), then
 * reachable with an outage going on, then failing for longer than the staleness limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const filesOutage = rawIncident({ id: 1700, type: 'outage', services: ['Files'], title: 'Files fail to upload' });
const MINUTE_MS = 60_000;

describe('every face while the feed cannot be read', () => {
  let vendor: TestVendor | null = null;
  let service: TestApp;
  let port: number;
  let nowMs = Date.UTC(2026, 9, 1, 15, 0, 0);
  let lastGoodReadMs = 0;

  const text = async (path: string) => (await service.fetch(service.url + path)).text();
  const json = async (path: string) => JSON.parse(await text(path));

  beforeAll(async () => {
    // A port that was just free: the service starts with no vendor behind it.
    const probe = await startTestVendor();
    port = probe.port;
    await probe.close();
    service = await startTestApp(`http://127.0.0.1:${port}`, { clock: { now: () => nowMs } });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('before the first successful read, no face claims a state', async () => {
    expect((await service.poll()).run.outcome).toBe('failed');

    const home = await text('/');
    expect(home).not.toContain('All clear');
    expect(home).toContain('Status unknown');
    expect(home).toContain('has not been read yet');
    expect(home).toContain('banner-unknown');

    const widget = await json('/widget.json?service=Files');
    expect(widget).toMatchObject({ state: 'unknown', stale: true, unknown_since: null, last_known_state: null });
    expect(widget.services).toEqual([{ name: 'Files', state: 'unknown' }]);
    expect(await json('/widget.json')).toMatchObject({ state: 'unknown', stale: true });

    const badge = await text('/badge.svg');
    expect(badge).toContain('aria-label="status: unknown"');
    expect(badge).toContain('#9f9f9f');

    expect((await json('/api/v2.0.0/current')).status).toBe('unknown');
    expect((await json('/api/v1.0.0/current')).status).toBe('unknown');
    expect((await json('/api/current')).status).toBe('unknown');

    // No day is green and no service is 100%: there is no data at all yet.
    expect(home).not.toContain('class="day day-none"');
    expect(home).toContain('class="day day-nodata"');
    const reliability = await json('/api/reliability');
    expect(reliability.availability.services[0].windows).toMatchObject([{ availability: null }, { availability: null }]);
    const page = await text('/reliability');
    expect(page).not.toContain('<td>100%</td>');
    expect(page).toContain('<td>no data</td>');
  });

  it('once read, the faces show the state; past the limit without a read, they say unknown since the last read', async () => {
    vendor = await startTestVendor({ port, historyWindowDays: 100_000 });
    await vendor.setIncidents([filesOutage]);
    expect((await service.poll()).run.outcome).toBe('ok');
    lastGoodReadMs = nowMs;
    nowMs += 31_000; // the hot paths keep a build up to 30 s
    expect(await json('/widget.json?service=Files')).toMatchObject({ state: 'outage', stale: false, unknown_since: null });
    expect((await json('/api/v2.0.0/current')).status).toBe('active');
    expect(await text('/')).toContain('1 incident going on');

    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    nowMs += 4 * MINUTE_MS;
    expect((await service.poll()).run.outcome).toBe('failed');
    // Within the limit: what the archive says still stands, and every face says it is as of the
    // last good read, in the same words. No face says a plain "now" beside "cannot be read".
    const lastRead = new Date(lastGoodReadMs).toISOString();
    const asOf = (time: string) => `As of ${time}, the last good read of the vendor's feed: the reads since failed.`;
    expect(await json('/widget.json?service=Files')).toMatchObject({ state: 'outage', stale: false, reads_failing: true, last_read_at: lastRead });
    expect(await json('/api/v2.0.0/current')).toMatchObject({ status: 'active', reads_failing: true, last_read_at: lastRead });
    expect(await text('/badge.svg?service=Files')).toContain('aria-label="Files: outage (as of last read)"');
    expect((await text('/embed?service=Files')).replaceAll('&#39;', "'")).toContain(asOf('2026-10-01 15:00 UTC'));
    const failingHome = await text('/');
    expect(failingHome.replaceAll('&#39;', "'")).toContain(asOf('<time datetime="2026-10-01T15:00:00Z">2026-10-01 15:00 UTC</time>'));
    expect(failingHome).toContain('banner-as-of');
    expect(failingHome).not.toContain('cannot be read');

    nowMs += 2 * MINUTE_MS;
    expect((await service.poll()).run.outcome).toBe('failed');
    const widget = await json('/widget.json?service=Files');
    expect(widget).toMatchObject({
      state: 'unknown',
      stale: true,
      unknown_since: new Date(lastGoodReadMs).toISOString(),
      last_known_state: 'outage',
      services: [{ name: 'Files', state: 'unknown' }],
    });
    expect(widget.incidents.map((i: { id: string }) => i.id)).toEqual(['1700']);
    expect(await text('/badge.svg?service=Files')).toContain('aria-label="Files: unknown"');

    const home = await text('/');
    expect(home).toContain('Status unknown');
    expect(home).toContain('no data since <time');
    expect(home).toContain('1 incident was going on');
    expect(home).not.toContain('1 incident going on');

    const v2 = await json('/api/v2.0.0/current');
    expect(v2.status).toBe('unknown');
    expect(v2.active_incidents.map((i: { id: number }) => i.id)).toEqual([1700]);
  });

  it('reading again brings the state back', async () => {
    await vendor!.clearFaults();
    expect((await service.poll()).run.outcome).toBe('ok');
    nowMs += 61_000; // the hot paths keep a build up to 30 s, the API a minute
    expect(await json('/widget.json?service=Files')).toMatchObject({ state: 'outage', stale: false, last_known_state: null });
    expect(await json('/api/v2.0.0/current')).toMatchObject({ status: 'active', reads_failing: false });
    expect(await text('/')).not.toContain('Status unknown');
    expect(await text('/')).not.toContain('the reads since failed');
  });
});
