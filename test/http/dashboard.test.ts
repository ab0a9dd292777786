/**
 * The dashboard pages through the service's app over a real SQLite file seeded with the scenario's
 * incidents (seed-archive.ts): security headers, escaping of hostile vendor text, filters, pages,
 * history. The feed-health warning follows real polls of the simulated vendor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/ports.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

/** The service's clock: 2026-10-01 15:00 UTC, one second later at each reading, so polls keep their order. */
function steppingClock(startMs: number): Clock {
  let now = startMs;
  return { now: () => (now += 1000) };
}
const NOW_MS = Date.UTC(2026, 9, 1, 15, 0, 0);

const HOSTILE_TITLE = 'Messages <script>alert("title")</script> & <img src=x onerror=alert(1)> fail';
const HOSTILE_NOTE =
  '<p>Looking <strong>into</strong> it.</p><script>alert("note")</script><img src=x onerror="alert(2)">' +
  '<a href="javascript:alert(3)">click</a> <a href="https://example.com/details">details</a>' +
  '<iframe src="https://evil.example/"></iframe><p onclick="alert(4)" style="color:red">styled</p>';

const outage = rawIncident({
  id: 2001,
  title: HOSTILE_TITLE,
  type: 'outage',
  status: 'active',
  services: ['Messaging'],
  date_created: '2026-10-01T05:00:00-07:00',
  date_updated: '2026-10-01T05:00:00-07:00',
  notes: [{ body: HOSTILE_NOTE, date_created: '2026-10-01T05:00:00-07:00' }],
});
const files = rawIncident({
  id: 2002,
  title: 'Some files fail to upload',
  type: 'incident',
  status: 'active',
  services: ['Files'],
  date_created: '2026-10-01T04:00:00-07:00',
  date_updated: '2026-10-01T04:00:00-07:00',
  // A 2019-style plain-text note: "<" is a character, line breaks are \r\n.
  notes: [{ body: 'Uploads < 5 MB fail.\r\nWe are on it.', date_created: '2026-10-01T04:00:00-07:00' }],
});
const search = rawIncident({
  id: 2003,
  title: 'Search indexing delayed',
  type: 'notice',
  status: 'resolved',
  services: ['Search'],
  date_created: '2026-09-10T09:00:00-07:00',
  date_updated: '2026-09-10T11:00:00-07:00',
  notes: [
    { body: '<p>Results may be stale.</p>', date_created: '2026-09-10T09:00:00-07:00' },
    { body: '<p>The zeppelin backlog is cleared.</p>', date_created: '2026-09-10T11:00:00-07:00' },
  ],
});
/** The outage as the vendor later edits and resolves it. */
const outageEdited: RawIncident = {
  ...outage,
  title: 'Messages fail to send',
  status: 'resolved',
  services: ['Messaging', 'Huddles'],
  date_updated: '2026-10-01T07:00:00-07:00',
  notes: [
    { body: '<p>Looking into it, <em>edited</em>.</p>', date_created: '2026-10-01T05:00:00-07:00' },
    { body: '<p>All fixed.</p>', date_created: '2026-10-01T07:00:00-07:00' },
  ],
};
const pad = (n: number) => String(n).padStart(2, '0');
/** Thirty resolved Canvases incidents, one a day from 2026-06-01: more than a page of 25. */
const routine: RawIncident[] = Array.from({ length: 30 }, (_, i) => {
  const date = `2026-06-${pad(1 + (i % 30))}T08:00:00-07:00`;
  return rawIncident({
    id: 3000 + i,
    title: `Routine incident ${i}`,
    type: 'incident',
    status: 'resolved',
    services: ['Canvases'],
    date_created: date,
    date_updated: date,
    notes: [{ body: '<p>Fixed.</p>', date_created: date }],
  });
});

type Page = { status: number; headers: Headers; html: string };

const decode = (href: string) => href.replace(/&amp;/g, '&');
/** The markup with every quoted attribute value emptied: what is left inside tags is names alone. */
const tagsOnly = (html: string) => html.replace(/"[^"]*"/g, '""');
const idsOn = (html: string) => [...html.matchAll(/<li class="incident-row[^"]*"><h3><a href="\/incidents\/(\d+)"/g)].map((m) => m[1]);

describe('dashboard pages', () => {
  let vendor: TestVendor;
  let service: TestApp;
  const get = async (path: string): Promise<Page> => {
    const res = await service.fetch(service.url + path);
    return { status: res.status, headers: res.headers, html: await res.text() };
  };

  const clock = steppingClock(NOW_MS);
  /** Seeds the archive with `incidents`, and has the vendor serve the same, for the polls of the feed-health test. */
  const seed = async (incidents: RawIncident[]) => {
    await vendor.setIncidents(incidents);
    return seedArchive(service.store, incidents, { now: clock.now() });
  };

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    service = await startTestApp(vendor.url, { clock });
    expect((await seed([outage, files, search, ...routine])).outcome).toBe('ok');
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
  });

  describe('security headers', () => {
    it('sends a CSP that runs our script file and nothing inline, with no per-view nonce', async () => {
      const first = await get('/');
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = first.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("img-src 'self' data:");
      expect(csp).toContain("style-src 'self';");
      // Our own files only: no nonce, no hash, nothing inline, no other origin.
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toContain('nonce');
      expect(csp).not.toContain('unsafe-inline');
      const scripts = [...first.html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toEqual([expect.stringMatching(/^<script src="\/app\.js\?v=[\w-]+" defer="">$/)]);
      expect(first.headers.get('x-content-type-options')).toBe('nosniff');
      expect(first.headers.get('referrer-policy')).toBe('no-referrer');
      expect(first.headers.get('x-frame-options')).toBe('DENY');

      // Another visitor gets the very same headers: nothing in them is theirs alone.
      const second = await get('/');
      expect(second.headers.get('content-security-policy')).toBe(csp);
    });

    it('sends the same headers on every page, errors included', async () => {
      for (const path of ['/incidents', '/incidents/2003', '/incidents/404404', '/incidents?since=soon']) {
        const page = await get(path);
        expect(page.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
        expect(page.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
    });

    it('links the stylesheets and marks the landmarks and the current section', async () => {
      const { html } = await get('/incidents');
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toMatch(/<link rel="stylesheet" href="\/style\.css\?v=[\w-]+"/);
      expect(html).toContain('<a class="skip-link" href="#main">');
      expect(html).toMatch(/<header[^>]*>[\s\S]*<nav aria-label="Main">[\s\S]*<\/header><main id="main"[\s\S]*<\/main><footer/);
      expect(html).toContain('<a href="/incidents" aria-current="page">Incidents</a>');
      expect(html).not.toContain('<a href="/" aria-current="page">');
    });
  });

  describe('/', () => {
    it('says how many incidents are going on, worst first, with their notes', async () => {
      const { html } = await get('/');
      expect(html).toContain('2 incidents going on');
      expect(html).toContain('1 outage, 1 incident');
      const outageAt = html.indexOf('<article class="incident-card incident-outage"');
      const filesAt = html.indexOf('<article class="incident-card incident-incident"');
      expect(outageAt).toBeGreaterThan(0);
      expect(filesAt).toBeGreaterThan(outageAt);
      expect(html).toContain('<a href="/incidents/2002">Some files fail to upload</a>');
      const now = /<section aria-labelledby="ongoing-title">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
      expect(now).toContain('Some files fail to upload');
      expect(now).not.toContain('Search indexing delayed'); // resolved: history, not now
      expect(html).toMatch(/Last checked <time datetime="2026-10-01T15:00:\d\dZ">2026-10-01 15:00 UTC<\/time>/);
      expect(html).not.toContain('cannot be read');
    });

    it('escapes a hostile title and sanitises a hostile note body', async () => {
      const { html } = await get('/');
      expect(html).toContain('Messages &lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; fail');
      expect([...html.matchAll(/<script\b/gi)]).toHaveLength(1);
      expect(html).not.toMatch(/<img\b/i);
      expect(html).not.toMatch(/<iframe\b/i);
      expect(tagsOnly(html)).not.toMatch(/<[^>]+\son\w+\s*=/i);
      expect(tagsOnly(html)).not.toMatch(/<[^>]+\sstyle\s*=/i);
      expect(html).not.toMatch(/javascript:/i);
      expect(html).toContain('<p>Looking <strong>into</strong> it.</p>');
      expect(html).toContain('href="https://example.com/details"');
      // A plain-text note stays text: its "<" is escaped and its line break kept by CSS.
      expect(html).toContain('<div class="note-body note-plain">Uploads &lt; 5 MB fail.\r\nWe are on it.</div>');
    });

    it('draws 90 daily bars per service, the day of the outage named in words', async () => {
      const { html } = await get('/');
      // 90 days, 30 on a narrow screen (the stylesheet shows one number; test/browser/day-bars.test.ts).
      expect(html).toMatch(/Services, last\s*<span class="bars-wide">90<\/span><span class="bars-narrow">30<\/span>\s*days/);
      const messaging = /<span class="service-name" id="service-bars-\d+">Messaging<\/span>[\s\S]*?<\/ol>/.exec(html)?.[0] ?? '';
      expect([...messaging.matchAll(/<li class="day day-/g)]).toHaveLength(90);
      expect(messaging).toMatch(/<li class="day day-outage" tabindex="-?[01]" aria-label="2026-10-01: Messages &lt;script&gt;[^"]*\(outage\)"/);
      const canvases = /<span class="service-name" id="service-bars-\d+">Canvases<\/span>[\s\S]*?<\/ol>/.exec(html)?.[0] ?? '';
      expect(canvases).not.toContain('day-incident'); // June is more than 90 days before October
    });

    it('leads each service row with its state now and its availability over the 90 days', async () => {
      const { html } = await get('/');
      const head = (service: string) =>
        new RegExp(`<span class="service-name" id="service-bars-\\d+">${service.replace('/', '\\/')}</span>[\\s\\S]*?</div>`).exec(html)?.[0] ?? '';
      // Messaging: an outage going on. Files: an incident going on, so up but not fully. Search: its
      // notice is over. Login/SSO: nothing ever.
      expect(head('Messaging')).toContain('>Outage</span>');
      expect(head('Files')).toContain('>Degraded</span>');
      expect(head('Search')).toContain('>Operational</span>');
      expect(head('Login/SSO')).toContain('>Operational</span>');
      // The archive speaks for all 90 days (its oldest incident is from June). Messaging: an outage
      // since 05:00 PDT (12:00 UTC) until now, a little after 15:00: 3 h of 2,160, 99.861% (99.860%
      // once the stepping clock passes 15:00:08). Files: an incident since 11:00 UTC, 4 h at the
      // partial-outage weight 0.3: 1.2 h, 99.944%. Login/SSO was never down.
      expect(head('Login/SSO')).toContain('100% available over 90 days');
      expect(head('Messaging')).toMatch(/99\.86[01]% available over 90 days/);
      expect(head('Files')).toMatch(/99\.94[34]% available over 90 days/);
      // One red bar, one day: counted once.
      expect(head('Messaging')).toContain('1 day with an outage');
      expect(head('Messaging')).not.toContain('with incidents');
    });
  });

  describe('/incidents', () => {
    it('pages through the history newest first, keeping the filters in the links', async () => {
      const first = await get('/incidents');
      expect(first.status).toBe(200);
      const firstIds = idsOn(first.html);
      expect(firstIds).toHaveLength(25);
      expect(firstIds.slice(0, 3)).toEqual(['2001', '2002', '2003']);
      expect(first.html).not.toContain('Newest first</a>');
      const next = /<a href="([^"]+)" rel="next">Older incidents<\/a>/.exec(first.html)?.[1];
      expect(next).toMatch(/^\/incidents\?cursor=/);

      const second = await get(decode(next!));
      const secondIds = idsOn(second.html);
      expect(secondIds).toHaveLength(8);
      expect(new Set([...firstIds, ...secondIds]).size).toBe(33);
      expect(second.html).toContain('<a href="/incidents">Newest first</a>');
      expect(second.html).not.toContain('rel="next"');

      const filtered = await get('/incidents?service=Canvases&limit=20&q=');
      const link = decode(/<a href="([^"]+)" rel="next">/.exec(filtered.html)?.[1] ?? '');
      expect(link).toMatch(/^\/incidents\?service=Canvases&limit=20&cursor=/);
      const rest = await get(link);
      expect(idsOn(rest.html)).toHaveLength(10);
      expect(idsOn(rest.html).every((id) => Number(id) >= 3000)).toBe(true);
    });

    it('filters by service, type, status and dates, and shows the choices back in the form', async () => {
      const bySearch = await get('/incidents?service=Search');
      expect(idsOn(bySearch.html)).toEqual(['2003']);
      expect(bySearch.html).toContain('<option value="Search" selected="">Search</option>');

      expect(idsOn((await get('/incidents?type=outage')).html)).toEqual(['2001']);
      expect(idsOn((await get('/incidents?status=active')).html)).toEqual(['2001', '2002']);
      expect(idsOn((await get('/incidents?type=notice&type=outage')).html)).toEqual(['2001', '2003']);

      const september = await get('/incidents?since=2026-09-01&until=2026-10-01');
      expect(idsOn(september.html)).toEqual(['2003']);
      expect(september.html).toContain('name="since" value="2026-09-01"');
      expect(september.html).toContain('1 incident matching, newest first');

      const none = await get('/incidents?service=Huddles');
      expect(none.status).toBe(200);
      expect(none.html).toContain('No incident matches these filters');
    });

    it('searches titles and note text, and escapes the query it shows back', async () => {
      expect(idsOn((await get('/incidents?q=indexing')).html)).toEqual(['2003']);
      expect(idsOn((await get('/incidents?q=zeppelin')).html)).toEqual(['2003']);
      const hostile = await get(`/incidents?q=${encodeURIComponent('"><script>alert(1)</script>')}`);
      expect(hostile.status).toBe(200);
      expect([...hostile.html.matchAll(/<script\b/gi)]).toHaveLength(1);
      expect(hostile.html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    });

    it('answers 400 with the reason and the form for filters it cannot use', async () => {
      const cases: [string, string][] = [
        // Named as the form names the fields, not as the URL does.
        ['/incidents?since=yesterday', '“From”: expected a date (2026-07-01)'],
        ['/incidents?until=soon', '“Before”: expected a date (2026-07-01)'],
        ['/incidents?since=2026-09-01&until=2026-08-01', '“From” must be earlier than “Before”'],
        ['/incidents?q=%21%21%21', 'has no words to look for'],
        ['/incidents?cursor=made-up', 'The link to this page of results is not valid'],
      ];
      for (const [path, reason] of cases) {
        const page = await get(path);
        expect(page.status, path).toBe(400);
        expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
        expect(page.html, path).toContain(reason);
        expect(page.html, path).toContain('<form method="get" action="/incidents"');
      }
    });
  });

  describe('/incidents/:id', () => {
    it('answers 404 for an incident the archive does not hold, escaping the id', async () => {
      const page = await get(`/incidents/${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Incident not found');
      expect(page.html).toContain('There is no incident “&lt;img src=x onerror=alert(1)&gt;” in the archive.');
      expect(page.html).not.toMatch(/<img\b/i);
    });

    it('shows the incident, its notes, and its history as changes in words', async () => {
      expect((await seed([outageEdited, files, search, ...routine])).outcome).toBe('ok');

      const page = await get('/incidents/2001');
      expect(page.status).toBe(200);
      expect(page.html).toContain('<h1 id="incident-title">Messages fail to send</h1>');
      expect(page.html).toContain('Archived from the vendor’s history.');
      expect(page.html).toContain(
        'Title changed from “Messages &lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; fail” to “Messages fail to send”.',
      );
      expect(page.html).toContain('Status changed from <strong>Active</strong> to <strong>Resolved</strong>.');
      expect(page.html).toContain('Services: Huddles added.');
      expect(page.html).toContain('Note added.');
      expect(page.html).toContain('Note edited.');
      // The edited note's old text is shown as text: the hostile markup stays inert.
      expect(page.html).toMatch(/<blockquote class="note-plain">Looking into it\.[^<]*click details/);
      expect(page.html).toContain('<p>All fixed.</p>');
      expect(page.html).toContain('lasted 2 h');
      expect(page.html).toContain('href="https://slack-status.com/');
      expect([...page.html.matchAll(/<script\b/gi)]).toHaveLength(1);
      expect(page.html).not.toMatch(/javascript:/i);

      // One order on the page, newest first, as status pages read: the notes and the changes alike.
      expect(page.html.indexOf('All fixed.')).toBeLessThan(page.html.indexOf('<em>edited</em>'));
      expect(page.html.indexOf('Status changed from')).toBeLessThan(page.html.indexOf('Archived from the vendor’s history.'));
      expect(page.html).toContain('aria-label="Changes, newest first"');

      const home = await get('/');
      expect(home.html).toContain('1 incident going on');
    });
  });

  describe('feed health', () => {
    it('while the latest reads fail, says on / and in /widget.json what it last knew and since when, in the same words', async () => {
      // By now one incident goes on (the outage was resolved by the incident-page test).
      const lastGoodRead = (await service.fetch(`${service.url}/widget.json`).then((res) => res.json())) as { last_read_at: string; state: string };
      expect(lastGoodRead.state).toBe('incident');
      await vendor.fault({ target: '*', kind: 'status', status: 503 });
      expect((await service.poll()).outcome).toBe('failed');
      const failing = await get('/');
      const at = lastGoodRead.last_read_at.replace(/\.\d+Z$/, 'Z');
      const sentence = (time: string) => `As of ${time}, the last good read of the vendor&#39;s feed: the reads since failed.`;
      const banner = /<section class="banner[^"]*"[\s\S]*?<\/section>/.exec(failing.html)?.[0] ?? '';
      // The banner says the state as of the last good read, dashed; no second, contradicting note below it.
      expect(banner).toContain('class="banner banner-incident banner-as-of"');
      expect(banner).toContain('1 incident going on');
      // One incident: its title under the count, not "1 incident" said twice.
      expect(banner).toContain('<p>Some files fail to upload</p>');
      expect(banner).not.toContain('<p>1 incident</p>');
      expect(banner).toContain(sentence(`<time datetime="${at}">${at.slice(0, 16).replace('T', ' ')} UTC</time>`));
      expect(failing.html).not.toContain('cannot be read');

      const widget = (await service.fetch(`${service.url}/widget.json`).then((res) => res.json())) as Record<string, unknown>;
      expect(widget).toMatchObject({ state: 'incident', stale: false, reads_failing: true, last_read_at: lastGoodRead.last_read_at });
      const badge = await service.fetch(`${service.url}/badge.svg`).then((res) => res.text());
      expect(badge).toContain('incident (as of last read)');
      const embed = await service.fetch(`${service.url}/embed`).then((res) => res.text());
      expect(embed).toContain(sentence(`${at.slice(0, 16).replace('T', ' ')} UTC`));

      await vendor.clearFaults();
      expect((await service.poll()).outcome).toBe('ok');
      const fresh = await get('/');
      expect(fresh.html).not.toContain('banner-as-of');
      expect(fresh.html).not.toContain('the reads since failed');
      const after = (await service.fetch(`${service.url}/widget.json`).then((res) => res.json())) as Record<string, unknown>;
      expect(after).toMatchObject({ stale: false, reads_failing: false });
    });
  });

  describe('one build per change, for the crowd reloading during an outage', () => {
    const PUBLIC_PAGES = ['/', '/incidents', '/incidents?service=Canvases&limit=5', '/incidents/2003', '/reliability'];

    it('gives a second visitor the same page under the same strong ETag, and a 304 to one who holds it', async () => {
      for (const path of PUBLIC_PAGES) {
        const first = await get(path);
        const etag = first.headers.get('etag');
        expect(first.status, path).toBe(200);
        expect(etag, path).toMatch(/^"[^"]+"$/); // strong: not W/
        expect(first.headers.get('cache-control'), path).toBe('no-cache');

        const second = await get(path);
        expect(second.headers.get('etag'), path).toBe(etag);
        expect(second.html, path).toBe(first.html);

        const res = await service.fetch(service.url + path, { headers: { 'if-none-match': etag! } });
        expect(res.status, path).toBe(304);
        expect(await res.text(), path).toBe('');
        expect(res.headers.get('etag'), path).toBe(etag);
        // A 304 refreshes the copy the browser keeps: it carries the page's policy too.
        expect(res.headers.get('content-security-policy'), path).toBe(first.headers.get('content-security-policy'));
        expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      }
    });

    it('keeps pages of one visitor out of it: admin pages carry no ETag and are not stored', async () => {
      const signIn = await get('/admin/sign-in');
      expect(signIn.status).toBe(200);
      expect(signIn.headers.get('etag')).toBeNull();
      expect(signIn.headers.get('cache-control')).toBe('no-store');
    });

    it('shows a poll that changed the archive at once, under a new ETag, and keeps the tag of pages it left alone', async () => {
      const home = await get('/');
      const incident = await get('/incidents/2003');
      expect(home.html).toContain('1 incident going on');
      expect(home.html).toContain('<a href="/incidents/2002">Some files fail to upload</a>');

      // The vendor resolves the last incident going on: `/` must say so to the next visitor.
      const resolved = { ...files, status: 'resolved', date_updated: '2026-10-01T06:00:00-07:00' };
      expect((await seed([outageEdited, resolved, search, ...routine])).outcome).toBe('ok');

      const after = await service.fetch(`${service.url}/`, { headers: { 'if-none-match': home.headers.get('etag')! } });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(home.headers.get('etag'));
      const html = await after.text();
      expect(html).toContain('All clear');
      expect(html).not.toContain('<a href="/incidents/2002">Some files fail to upload</a>');

      // An incident the poll did not touch: the same bytes, so clients holding it keep their 304.
      const again = await service.fetch(`${service.url}/incidents/2003`, { headers: { 'if-none-match': incident.headers.get('etag')! } });
      expect(again.status).toBe(304);
    });
  });
});
