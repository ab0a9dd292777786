/**
 * The embeddables through the service's app: hot-path headers, ETags and 304s, CORS, staleness,
 * escaping. The archive is seeded with the scenario's incidents (seed-archive.ts); what follows a
 * poll (an unchanged feed, a change, a feed that stops answering) polls the simulated vendor over HTTP.
 */
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The file as it is in the repository, read by Vite: the same in Node and in workerd.
import widgetSource from '../../public/widget.js?raw';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const HOT_PATH_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400';
const EVIL_SERVICE = `<script>alert(1)</script> & "Co"`;

const filesOutage = rawIncident({
  id: 1600,
  title: 'Files <img src=x onerror=alert(1)> fail to upload',
  type: 'outage',
  services: ['Files', EVIL_SERVICE],
  date_updated: '2026-10-01T06:30:00-07:00',
});
const messagingNotice = rawIncident({ id: 1601, type: 'notice', services: ['Messaging'] });
const searchResolved = rawIncident({ id: 1500, status: 'resolved', services: ['Search'], date_updated: '2026-09-01T10:00:00-07:00' });

type Fetched = { status: number; headers: Headers; body: string };

describe('widget, badge and embed', () => {
  let vendor: TestVendor;
  let service: TestApp;
  /** The service's clock: tests move it instead of waiting. */
  let nowMs = Date.UTC(2026, 9, 1, 15, 0, 0);

  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Fetched> => {
    const res = await service.fetch(service.url + path, { method, headers });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  const widget = async (query = '') => JSON.parse((await get(`/widget.json${query}`)).body);

  const expectHotPathHeaders = (res: Fetched) => {
    expect(res.headers.get('cache-control')).toBe(HOT_PATH_CACHE_CONTROL);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/); // strong: no W/
    expect(res.headers.get('set-cookie')).toBeNull();
  };

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    service = await startTestApp(vendor.url, { clock: { now: () => nowMs } });
    // The vendor serves what the archive holds, for the polls that follow.
    await vendor.setIncidents([filesOutage, messagingNotice, searchResolved]);
    expect((await seedArchive(service.store, [filesOutage, messagingNotice, searchResolved], { now: nowMs })).events).toHaveLength(3);
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('serves the widget data with the hot-path headers', async () => {
    const res = await get('/widget.json', { origin: 'https://blog.example.org' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expectHotPathHeaders(res);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(JSON.parse(res.body)).toEqual({
      state: 'outage',
      stale: false,
      reads_failing: false,
      last_read_at: '2026-10-01T15:00:00.000Z',
      unknown_since: null,
      last_known_state: null,
      updated_at: '2026-10-01T13:30:00.000Z',
      url: `${service.url}/`,
      services: [
        { name: EVIL_SERVICE, state: 'outage' },
        { name: 'Files', state: 'outage' },
        { name: 'Messaging', state: 'notice' },
      ],
      incidents: [
        {
          id: '1600',
          title: 'Files <img src=x onerror=alert(1)> fail to upload',
          type: 'outage',
          status: 'active',
          state: 'outage',
          services: ['Files', EVIL_SERVICE],
          updated_at: '2026-10-01T13:30:00.000Z',
          url: `${service.url}/incidents/1600`,
        },
        expect.objectContaining({ id: '1601', state: 'notice' }),
      ],
    });
  });

  it('answers If-None-Match with 304 and the same headers until a poll changes what it shows', async () => {
    const first = await get('/widget.json');
    const etag = first.headers.get('etag')!;
    const notModified = await get('/widget.json', { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe('');
    expectHotPathHeaders(notModified);
    expect(notModified.headers.get('etag')).toBe(etag);

    await service.poll(); // the feed is unchanged
    expect((await get('/widget.json', { 'if-none-match': etag })).status).toBe(304);
    // Past the server's own cache lifetime the body is built again: the same bytes keep the tag.
    nowMs += 45_000;
    expect((await get('/widget.json', { 'if-none-match': etag })).status).toBe(304);

    await vendor.setIncidents([
      filesOutage,
      rawIncident({ ...messagingNotice, status: 'resolved', date_updated: '2026-10-01T08:00:00-07:00' }),
      searchResolved,
    ]);
    await service.poll();
    nowMs += 1_000; // the hot paths look at the archive generation at most once a second
    const changed = await get('/widget.json', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    const body = JSON.parse(changed.body);
    expect(body.incidents.map((i: any) => i.id)).toEqual(['1600']);
    expect(body.updated_at).toBe('2026-10-01T15:00:00.000Z');
  });

  it('filters by service, each filter with its own body and ETag', async () => {
    const all = await get('/widget.json');
    const search = await get('/widget.json?service=Search,Canvases');
    expect(search.headers.get('etag')).not.toBe(all.headers.get('etag'));
    expect(JSON.parse(search.body)).toMatchObject({
      state: 'ok',
      updated_at: '2026-09-01T17:00:00.000Z',
      services: [
        { name: 'Search', state: 'ok' },
        { name: 'Canvases', state: 'ok' },
      ],
      incidents: [],
    });
    expect((await get('/widget.json?service=Search,Canvases', { 'if-none-match': search.headers.get('etag')! })).status).toBe(304);
    expect(await widget('?service=Files&service=Messaging')).toMatchObject({ state: 'outage', services: [{ name: 'Files' }, { name: 'Messaging' }] });
  });

  it('answers CORS preflights for every embeddable, from any origin', async () => {
    for (const path of ['/widget.json', '/badge.svg', '/widget.js', '/embed']) {
      const res = await get(
        path,
        { origin: 'https://blog.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match, x-custom' },
        'OPTIONS',
      );
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
      expect(res.headers.get('access-control-allow-headers')).toBe('*');
      expect(res.headers.get('access-control-max-age')).toBe('86400');
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('draws a badge per service, its hostile name escaped, with ETag and 304', async () => {
    const res = await get(`/badge.svg?service=${encodeURIComponent(EVIL_SERVICE)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expectHotPathHeaders(res);
    expect(XMLValidator.validate(res.body)).toBe(true);
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('aria-label="&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;: outage"');
    expect((await get(`/badge.svg?service=${encodeURIComponent(EVIL_SERVICE)}`, { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);

    expect((await get('/badge.svg')).body).toContain('aria-label="status: outage"');
    expect((await get('/badge.svg?service=Search')).body).toContain('aria-label="Search: operational"');
  });

  it('serves the embed page: the element on its own script, framable by anyone, query values escaped', async () => {
    const res = await get(`/embed?service=${encodeURIComponent('Files,"><script>alert(1)</script>')}&theme=dark`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expectHotPathHeaders(res);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain('frame-ancestors *');
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.body).toContain('<statuswatch-widget services="Files,&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" theme="dark">');
    // The state is in the page for readers without scripts, the vendor's words escaped.
    expect(res.body).toContain('<span class="summary">Service outage</span>');
    expect(res.body).toContain('href="incidents/1600" target="_blank" rel="noopener noreferrer">Files &lt;img src=x onerror=alert(1)&gt; fail to upload</a>');
    expect(res.body).not.toContain('<img');
    expect(res.body).toContain('<script src="widget.js" async></script>');
    // Exactly one script, and nothing fetched from anywhere but its own origin.
    expect(res.body.match(/<script/g)).toHaveLength(1);
    expect(res.body).not.toMatch(/(src|href)="?(https?:)?\/\//);

    expect((await get('/embed?theme=purple')).body).toContain('<statuswatch-widget theme="auto">');
  });

  it('serves the element script with the hot-path headers and a 304', async () => {
    const res = await get('/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expectHotPathHeaders(res);
    expect(res.body).toBe(widgetSource);
    expect(res.body).toContain('customElements.define(TAG, StatuswatchWidget)');
    expect((await get('/widget.js', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304);
  });

  it('links to PUBLIC_URL when it is set', async () => {
    const other = await startTestApp(NO_FEED_URL, { env: { PUBLIC_URL: 'https://status.example.com/' } });
    try {
      await seedArchive(other.store, [filesOutage, messagingNotice, searchResolved]);
      const res = await other.fetch(`${other.url}/widget.json`);
      const body = await res.json();
      expect(body.url).toBe('https://status.example.com/');
      expect(body.incidents[0].url).toBe('https://status.example.com/incidents/1600');
    } finally {
      await other.close();
    }
  });

  // Last: it leaves the feed failing and the clock moved on.
  it('turns stale when the feed has not been read for five minutes, and fresh again once it is', async () => {
    const fresh = await get('/widget.json');
    expect(JSON.parse(fresh.body).stale).toBe(false);

    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    nowMs += 6 * 60_000;
    expect((await service.poll()).outcome).toBe('failed');
    const stale = await get('/widget.json', { 'if-none-match': fresh.headers.get('etag')! });
    expect(stale.status).toBe(200);
    expect(JSON.parse(stale.body)).toMatchObject({ stale: true, state: 'unknown', last_known_state: 'outage' });
    expect((await get('/badge.svg?service=Files')).body).toContain('aria-label="Files: unknown"');
    // The embed page says so without scripts too: grey, "Status unknown", since when, what was last known.
    const embed = (await get('/embed?service=Files')).body;
    expect(embed).toContain('<div class="widget state-unknown" data-state="unknown" data-stale="true">');
    expect(embed).toContain('<span class="summary">Status unknown</span>');
    expect(embed).toMatch(/no data since 2026-10-01 \d\d:\d\d UTC\. Last known: Service outage\./);
    expect(embed).not.toContain('Service outage</span>');

    await vendor.clearFaults();
    expect((await service.poll()).outcome).toBe('ok');
    nowMs += 31_000; // a build lives up to 30 s in the server's own cache
    expect(await widget()).toMatchObject({ stale: false, state: 'outage' });
    expect((await get('/badge.svg?service=Files')).body).toContain('aria-label="Files: outage"');
  });
});

describe('a vendor that sends a one-megabyte title', () => {
  const title = `Messaging is down ${'because '.repeat(131_072)}`; // 1 MB
  let service: TestApp;

  beforeAll(async () => {
    const now = Date.UTC(2026, 9, 1, 15, 0, 0);
    service = await startTestApp(NO_FEED_URL, { clock: { now: () => now } });
    expect((await seedArchive(service.store, [rawIncident({ id: 1700, title })], { now })).events).toHaveLength(1);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('gets a small /widget.json with the title cut, while the archive keeps all of it', async () => {
    const res = await service.fetch(`${service.url}/widget.json`);
    const body = await res.text();
    expect(body.length).toBeLessThan(2_000);
    const shown = JSON.parse(body).incidents[0].title as string;
    expect(shown).toMatch(/^Messaging is down because because .*…$/);
    const kept = await (await service.fetch(`${service.url}/api/incidents/1700`)).json();
    expect(kept.incident.title).toBe(title);
  });
});
