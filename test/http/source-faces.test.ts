/**
 * `?source=` on the embeddables and the feeds (both projects: a SQLite file on Node, D1 in
 * workerd; real HTTP on loopback to the simulated vendor and a simulated page in the Statuspage
 * format): a watched page's widget, badge, embed and feeds answer for that page and name it, say
 * what the dashboard says of it, count its components' own states (a component flipped without an
 * incident), say "unknown" while it is blind, and never change the vendor's answers. An unknown
 * source is a 404, a malformed one a 400. What the page sends is escaped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useSourceFaceWorld } from '../helpers/source-face-world.ts';

const EVIL_NAME = '<script>alert(1)</script> & Co';
const MINUTE_MS = 60_000;

describe('a watched page on the widget, the badge and the feeds', () => {
  const world = useSourceFaceWorld({ pageName: EVIL_NAME, vendorIncidents: [rawIncident({ id: 41, services: ['Files'], type: 'outage' })] });
  const { get } = world;
  const json = async (path: string) => JSON.parse((await get(path)).text);
  /** The page's story, `steps` steps on, then polled. */
  const advance = async (steps: number) => {
    for (let i = 0; i < steps; i++) expect((await fetch(`${world.page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('ok');
  };
  /** The state word of the source's row in the overview on `/`. */
  const overviewState = async () => {
    const home = (await get('/')).text;
    const row = home.slice(home.indexOf('id="sources-title"'));
    return /state-now-[a-z]+">([^<]+)</.exec(row)?.[1];
  };

  beforeAll(() => advance(1)); // its story's incident opens: API partially out

  it("answers the widget for the page, naming it, as the dashboard's overview says it; the vendor's widget is as before", async () => {
    const widget = await json(`/widget.json?source=${world.sourceId}`);
    expect(widget).toMatchObject({ state: 'outage', stale: false, source: { id: world.sourceId, name: EVIL_NAME } });
    expect(widget.services).toEqual([{ name: 'API', state: 'outage' }]);
    expect(widget.incidents.map((i: { title: string }) => i.title)).toEqual(['Elevated API error rates']);
    expect(await overviewState()).toBe('Outage');
    const vendorWidget = await json('/widget.json');
    expect(vendorWidget.source).toBeUndefined();
    expect(vendorWidget.services).toEqual([{ name: 'Files', state: 'outage' }]);
    expect(await json('/widget.json?source=main')).toEqual(vendorWidget);
    const filtered = await json(`/widget.json?source=${world.sourceId}&service=Website&service=Nope`);
    expect(filtered.services).toEqual([
      { name: 'Website', state: 'ok' },
      { name: 'Nope', state: 'unknown' },
    ]);
  });

  it("knows each source's own service names: the vendor's widget does not know the page's component, the page's widget does", async () => {
    // API is the page's component, named by its incident; the vendor has no such service.
    const vendorAsked = await json('/widget.json?service=API');
    const vendorNever = await json('/widget.json?service=Nope');
    expect(vendorAsked.services).toEqual([{ name: 'API', state: 'unknown' }]);
    expect({ ...vendorAsked, services: [] }).toEqual({ ...vendorNever, services: [] });
    const pageAsked = await json(`/widget.json?source=${world.sourceId}&service=API`);
    expect(pageAsked).toMatchObject({ state: 'outage', services: [{ name: 'API', state: 'outage' }] });
    // And the reverse: the vendor's service is not one of the page's.
    const pageFiles = await json(`/widget.json?source=${world.sourceId}&service=Files`);
    expect(pageFiles).toMatchObject({ state: 'unknown', services: [{ name: 'Files', state: 'unknown' }] });
  });

  it('refuses an unknown source with 404 and a malformed one with 400, on every face', async () => {
    for (const path of ['/widget.json', '/badge.svg', '/embed', '/feed.atom', '/feed.rss', '/feed.json']) {
      const missing = await get(`${path}?source=src_nope`);
      expect([path, missing.status, JSON.parse(missing.text).error]).toEqual([path, 404, 'source_not_found']);
      const bad = await get(`${path}?source=${encodeURIComponent('<x>')}`);
      expect([path, bad.status, JSON.parse(bad.text).error]).toEqual([path, 400, 'invalid_request']);
    }
  });

  it('escapes the name on the badge and the embed, which name the page', async () => {
    const badge = await get(`/badge.svg?source=${world.sourceId}`);
    expect(badge.status).toBe(200);
    expect(badge.text).not.toContain('<script>');
    expect(badge.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(badge.text).toContain('outage');
    const embed = await get(`/embed?source=${world.sourceId}`);
    expect(embed.text).not.toContain('<script>alert');
    expect(embed.text).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co: service status</title>');
    expect(embed.text).toContain(`source="${world.sourceId}"`);
  });

  it("lists the page's incidents in its feeds, named for it, and none of them in the vendor's", async () => {
    const atom = await get(`/feed.atom?source=${world.sourceId}`);
    expect(atom.status).toBe(200);
    expect(atom.text).toContain('Elevated API error rates');
    expect(atom.text).toContain('statuswatch: &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co: incidents');
    expect(atom.text).not.toContain('<script>');
    const feed = JSON.parse((await get(`/feed.json?source=${world.sourceId}`)).text);
    expect(feed.items.every((item: { url: string }) => item.url.includes(encodeURIComponent(`${world.sourceId}:`)))).toBe(true);
    expect((await get('/feed.atom')).text).not.toContain(world.sourceId);
  });

  it("gives the page's track record with ?source= on /api/reliability and /reliability, named for it; the vendor's is its own", async () => {
    const track = await json(`/api/reliability?source=${world.sourceId}`);
    expect(track.source).toEqual({ id: world.sourceId, name: EVIL_NAME });
    // The page's components are its services; only API had an incident.
    const services = track.availability.services as { service: string; windows: { incidents: number }[] }[];
    expect(services.map((s) => s.service).sort()).toEqual(['API', 'Database', 'Website']);
    expect(services.filter((s) => s.windows.some((w) => w.incidents > 0)).map((s) => s.service)).toEqual(['API']);
    const vendorTrack = await json('/api/reliability');
    expect(vendorTrack.source).toBeUndefined();
    expect(vendorTrack.availability.services.map((s: { service: string }) => s.service)).not.toContain('API');
    const reliability = await get(`/reliability?source=${world.sourceId}`);
    expect(reliability.status).toBe(200);
    expect(reliability.text).toContain('<h1>Reliability of &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co</h1>');
    expect(reliability.text).not.toContain('<script>alert');
    expect((await get('/reliability')).text).toContain('<h1>Reliability</h1>');
    expect((await get('/api/reliability?source=src_nope')).status).toBe(404);
    expect((await get('/reliability?source=src_nope')).status).toBe(404);
    expect((await get('/api/reliability?source=bad!')).status).toBe(400);
  });

  it('documents ?source= in /openapi.json wherever a face takes it', async () => {
    const doc = await json('/openapi.json');
    for (const path of ['/widget.json', '/api/reliability', '/api/incidents', '/api/events']) {
      const names = (doc.paths[path].get.parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name);
      expect([path, names.includes('source')]).toEqual([path, true]);
    }
  });

  it("keeps the page's incidents out of the vendor mirror, its history and v1's latest included", async () => {
    for (const path of ['/api/v2.0.0/history', '/api/v1.0.0/history', '/api/history', '/api/v2.0.0/current', '/api/v1.0.0/current', '/api/current']) {
      const answer = await get(path);
      expect([path, answer.status, answer.text.includes(world.sourceId), answer.text.includes('Elevated API error rates')]).toEqual([path, 200, false, false]);
    }
  });

  it('counts a component flipped without an incident, on the widget and the overview alike', async () => {
    await advance(7); // the incident resolved, edited, its postmortem; then Website degraded without an incident
    const widget = await json(`/widget.json?source=${world.sourceId}`);
    expect(widget).toMatchObject({ state: 'incident', incidents: [] });
    expect(widget.services).toEqual([{ name: 'Website', state: 'incident' }]);
    expect(await overviewState()).toBe('Degraded');
    expect((await get(`/badge.svg?source=${world.sourceId}`)).text).toContain('Co: incident</title>'); // the badge's word, as for the vendor
  });

  it('is unknown while the page is blind, on the widget, the badge and the overview', async () => {
    world.nowMs += 6 * MINUTE_MS;
    await world.page.fault({ target: '*', kind: 'status', status: 503, times: 3 });
    expect((await world.service.admin('POST', `/api/admin/poll?source=${world.sourceId}`)).body.sources[0].outcome).toBe('failed');
    expect((await world.service.poll()).run.outcome).toBe('ok'); // the main feed read anew, so only the page is blind
    const widget = await json(`/widget.json?source=${world.sourceId}`);
    expect(widget).toMatchObject({ state: 'unknown', stale: true, last_known_state: 'incident' });
    expect(widget.services).toEqual([{ name: 'Website', state: 'unknown' }]);
    expect(await overviewState()).toBe('Unknown');
    expect((await get(`/badge.svg?source=${world.sourceId}`)).text).toContain('unknown');
    expect((await json('/widget.json')).stale).toBe(false);
    await world.page.clearFaults();
  });
});
