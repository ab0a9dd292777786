/**
 * Sources administered over the API (both projects: a SQLite file on Node, D1 in workerd; real
 * HTTP on loopback to simulated pages in the Statuspage format): a
 * simulated page in the Statuspage format is added by its address and named from the page; the
 * main simulated vendor, an HTML page, a dead port and a page that never answers are refused with
 * a clear error and nothing is saved; every source is listed, the main feed first, each "unknown"
 * until a poll reads it; a source is removed, keeping its archive, or with `?purge=true` its
 * archive too, which every face then stops showing while the main feed and another page stay as
 * they were.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { inputValues, signInAdmin } from '../helpers/admin-page-client.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { startTestStatuspage, type TestStatuspage } from '../helpers/statuspage-pages.ts';

/** How long the public pages trust the generation they last read (page-cache.ts). */
const PAGE_GENERATION_TTL_MS = 1000;

/** Nothing listens on port 9 (discard), on either runtime. */
const DEAD_URL = 'http://localhost:9';

const NOT_FORMAT = 'this address does not answer in the Statuspage format';
const HINT = '(set WEBHOOK_ALLOW_PRIVATE=true to allow plain http: and private or loopback targets)';

describe('sources over the API', () => {
  let vendor: TestVendor;
  let acme: TestStatuspage;
  let other: TestStatuspage;
  let third: TestStatuspage;
  let service: TestApp;
  const mainSource = () => ({
    id: 'main',
    kind: 'vendor-feed',
    name: new URL(vendor.url).host,
    url: vendor.url,
    created_at: null,
    state: 'unknown',
    last_success_at: null,
    consecutive_failures: 0,
  });

  beforeAll(async () => {
    vendor = await startTestVendor();
    acme = await startTestStatuspage();
    other = await startTestStatuspage({ name: 'Globex Mail' });
    third = await startTestStatuspage({ name: 'Initech' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', SOURCES_MAX: '2', POLL_TIMEOUT_MS: '1000' } });
  });
  afterEach(async () => {
    await acme.clearFaults();
    for (const source of (await service.get('/api/sources')).body.sources) {
      if (source.id !== 'main') await service.admin('DELETE', `/api/admin/sources/${source.id}`);
    }
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), acme?.close(), other?.close(), third?.close()]);
  });

  it('adds a page by its address, named from the page, and lists it after the main feed, both unknown until polled', async () => {
    expect((await service.get('/api/sources')).body).toEqual({ ok: true, sources: [mainSource()] });
    // Pasted with a trailing slash and a query: kept as the page's address alone.
    const added = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: `${acme.url}/?utm=x` });
    expect(added.status).toBe(201);
    const source = {
      id: expect.stringMatching(/^src_[a-z0-9]+$/),
      kind: 'statuspage',
      name: 'Acme Cloud',
      url: acme.url,
      created_at: expect.any(String),
      state: 'unknown',
      last_success_at: null,
      consecutive_failures: 0,
    };
    expect(added.body).toEqual({ ok: true, source });
    expect((await service.get('/api/sources')).body).toEqual({ ok: true, sources: [mainSource(), source] });
    // The page was asked for its summary, once.
    expect((await acme.requests()).filter((r) => r.path === '/api/v2/summary.json')).toHaveLength(1);
  });

  it("cuts a page's long name to 100 characters without splitting a character the page sent", async () => {
    // 99 letters, then an emoji (two UTF-16 units) across the 100th: it is left out whole.
    const longNamed = await startTestStatuspage({ name: `${'A'.repeat(99)}🎉 and more` });
    try {
      const added = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: longNamed.url });
      expect(added.status).toBe(201);
      expect(added.body.source.name).toBe('A'.repeat(99));
      expect((await service.get('/api/sources')).body.sources.at(-1).name).toBe('A'.repeat(99));
    } finally {
      await longNamed.close();
    }
  });

  it('takes a name when given one, refuses the same address twice, and refuses past SOURCES_MAX', async () => {
    const named = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: other.url, name: '  Mail  ' });
    expect(named.status).toBe(201);
    expect(named.body.source.name).toBe('Mail');
    const again = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: `${other.url}/api/v2/summary.json` });
    expect(again).toEqual({ status: 409, body: { ok: false, error: 'source_exists', detail: `a source with the address ${other.url} exists already` } });
    expect((await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url })).status).toBe(201);
    // A third page: SOURCES_MAX is 2.
    const full = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: third.url });
    expect(full.status).toBe(409);
    expect(full.body.error).toBe('too_many_sources');
    expect((await service.get('/api/sources')).body.sources).toHaveLength(3);
  });

  it('refuses an address that does not answer in the format, saying why, and saves nothing', async () => {
    // The main simulated vendor: no summary there.
    const vendorPage = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: vendor.url });
    expect(vendorPage.status).toBe(400);
    expect(vendorPage.body).toEqual({ ok: false, error: 'not_statuspage', detail: `${NOT_FORMAT}: GET ${vendor.url}/api/v2/summary.json answered HTTP 404` });
    // An HTML page answered with a 200.
    await acme.fault({ target: 'summary', kind: 'html' });
    const html = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url });
    expect(html.status).toBe(400);
    expect(html.body.error).toBe('not_statuspage');
    expect(html.body.detail).toMatch(new RegExp(`^${NOT_FORMAT}: .+`));
    const dead = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: DEAD_URL });
    expect(dead.status).toBe(400);
    expect(dead.body.error).toBe('source_unreachable');
    expect(dead.body.detail).toMatch(/^this address could not be read, so it was not added: GET http:\/\/localhost:9\/api\/v2\/summary\.json: /);
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
  });

  it('gives up on a page that does not answer within POLL_TIMEOUT_MS', async () => {
    await acme.fault({ target: 'summary', kind: 'timeout' });
    const started = Date.now();
    const slow = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(slow.body).toEqual({
      ok: false,
      error: 'source_unreachable',
      detail: `this address could not be read, so it was not added: GET ${acme.url}/api/v2/summary.json: no complete answer within 1000 ms`,
    });
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
  });

  it('refuses bad requests in the one error shape, and only the admin may add or remove', async () => {
    const asked = (await acme.requests()).length;
    const anonymous = await service.fetch(`${service.url}/api/admin/sources`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'statuspage', url: acme.url }),
    });
    expect(anonymous.status).toBe(401);
    const wrongKind = await service.admin('POST', '/api/admin/sources', { kind: 'rss', url: acme.url });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.detail).toBe('kind: the only kind of source is "statuspage"');
    const notUrl = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: 'status page' });
    expect(notUrl.body.detail).toBe('url: not a valid absolute URL, such as https://www.githubstatus.com');
    const longName = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url, name: 'x'.repeat(101) });
    expect(longName.body.detail).toBe('name: at most 100 characters');
    expect((await service.get('/api/sources?limit=5')).status).toBe(400);
    expect(await acme.requests()).toHaveLength(asked);
  });

  it('removes a source, keeping its archive; the main feed stays', async () => {
    const added = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url });
    const id = added.body.source.id;
    expect(await service.admin('DELETE', `/api/admin/sources/${id}?purge=yes`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await service.admin('DELETE', `/api/admin/sources/${id}?purge=false`)).toEqual({ status: 200, body: { ok: true, archive: 'kept' } });
    expect(await service.admin('DELETE', `/api/admin/sources/${id}`)).toMatchObject({ status: 404, body: { error: 'source_not_found' } });
    expect(await service.admin('DELETE', '/api/admin/sources/main')).toMatchObject({ status: 400 });
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
  });

  it('the admin page adds and removes a page with the same checks, keeping what was typed when refused', async () => {
    const admin = await signInAdmin(service);
    const empty = await admin.get('/admin/sources');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain(vendor.url);
    expect(empty.html).toContain('set by STATUS_URL');
    // Refused as the API refuses it, in the same words; the form comes back as typed.
    const refused = await admin.post('/admin/sources', { url: vendor.url, name: 'Our vendor' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain(`${NOT_FORMAT}: GET ${vendor.url}/api/v2/summary.json answered HTTP 404`);
    expect(inputValues(refused.html, 'url')).toEqual([vendor.url]);
    expect(inputValues(refused.html, 'name')).toEqual(['Our vendor']);
    const added = await admin.post('/admin/sources', { url: acme.url, name: '' });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/admin/sources?done=added');
    const [source] = (await service.get('/api/sources')).body.sources.slice(1);
    expect(source).toMatchObject({ name: 'Acme Cloud', url: acme.url, state: 'unknown' });
    const listed = await admin.get('/admin/sources?done=added');
    expect(listed.html).toContain('Acme Cloud');
    expect(listed.html).toContain(`/admin/sources/${source.id}/remove`);
    const removed = await admin.post(`/admin/sources/${source.id}/remove`, {});
    expect(removed.status).toBe(303);
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
    // Deleting the archive too is a second step: behind a summary to open, then its own button.
    await admin.post('/admin/sources', { url: acme.url, name: '' });
    const [again] = (await service.get('/api/sources')).body.sources.slice(1);
    const page = await admin.get('/admin/sources');
    expect(page.html).toMatch(/<details class="confirm-step">\s*<summary>Remove and delete its archive…<\/summary>/);
    expect(page.html).toContain(`/admin/sources/${again.id}/purge`);
    const purged = await admin.post(`/admin/sources/${again.id}/purge`, {});
    expect([purged.status, purged.headers.get('location')]).toEqual([303, '/admin/sources?done=purged']);
    expect((await admin.get('/admin/sources?done=purged')).html).toContain('Removed, and everything it archived deleted.');
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
    expect((await admin.post(`/admin/sources/${again.id}/purge`, {})).status).toBe(404);
    // Without the session's CSRF token, nothing is added.
    const forged = await admin.post('/admin/sources', { url: acme.url, csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect((await service.get('/api/sources')).body.sources).toEqual([mainSource()]);
  });
});

describe('removing a source with its archive', () => {
  let vendor: TestVendor;
  let acme: TestStatuspage;
  let other: TestStatuspage;
  let service: TestApp;
  beforeAll(async () => {
    vendor = await startTestVendor();
    acme = await startTestStatuspage();
    other = await startTestStatuspage({ name: 'Globex Mail' });
    service = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await service?.close();
    await Promise.all([vendor?.close(), acme?.close(), other?.close()]);
  });

  it('removes a source with ?purge=true and its archive with it: no face shows it, the main feed and another page stay as they were', async () => {
    await vendor.setIncidents([rawIncident({ id: 41, title: 'Database errors at the vendor' })]);
    const acmeId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url })).body.source.id;
    const otherId = (await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: other.url })).body.source.id;
    const polled = await service.admin('POST', '/api/admin/poll');
    expect(polled.body.sources.map((s: { outcome: string }) => s.outcome)).toEqual(['ok', 'ok']);
    // The page opens its story's incident and its component goes down with it: a news event for
    // each, both to be purged.
    expect((await fetch(`${acme.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
    const news = (await service.admin('POST', `/api/admin/poll?source=${acmeId}`)).body.sources[0].events as { type: string }[];
    expect(news.map((e) => e.type).sort()).toEqual(['component.status_changed', 'incident.created']);

    const ids = async (path: string) => ((await service.get(path)).body.incidents as { id: string }[]).map((i) => i.id);
    const acmeIds = await ids(`/api/incidents?source=${acmeId}`);
    expect(acmeIds).toHaveLength(2);
    const faces = async () => ({
      main: (await service.get('/api/incidents?source=main')).body,
      mainEvents: (await service.get('/api/events?source=main')).body,
      other: (await service.get(`/api/incidents?source=${otherId}`)).body,
      otherEvents: (await service.get(`/api/events?source=${otherId}`)).body,
      otherPage: (await service.fetch(`${service.url}/sources/${otherId}`)).status,
    });
    const before = await faces();
    // Read once before, so that a cached answer would show the purged incidents.
    const all = await ids('/api/incidents');
    expect(all).toEqual(expect.arrayContaining(acmeIds));
    expect((await service.fetch(`${service.url}/sources/${acmeId}`)).status).toBe(200);

    const purged = await service.admin('DELETE', `/api/admin/sources/${acmeId}?purge=true`);
    expect(purged).toEqual({ status: 200, body: { ok: true, archive: 'deleted' } });

    expect(await ids('/api/incidents')).toEqual(all.filter((id) => !acmeIds.includes(id)));
    expect(await ids(`/api/incidents?source=${acmeId}`)).toEqual([]);
    expect((await service.get(`/api/events?source=${acmeId}`)).body.events).toEqual([]);
    expect(((await service.get('/api/events')).body.events as { source: string }[]).some((e) => e.source === acmeId)).toBe(false);
    expect((await service.get(`/api/incidents/${encodeURIComponent(acmeIds[0]!)}`)).status).toBe(404);
    expect((await service.fetch(`${service.url}/widget.json?source=${acmeId}`)).status).toBe(404);
    // The pages trust the generation they read for a second, as they do after a poll.
    await new Promise((resolve) => setTimeout(resolve, PAGE_GENERATION_TTL_MS + 100));
    expect((await service.fetch(`${service.url}/sources/${acmeId}`)).status).toBe(404);
    expect(await faces()).toEqual(before);
    expect((await service.get('/api/sources')).body.sources.map((s: { id: string }) => s.id)).toEqual(['main', otherId]);
    // Gone: asked again, there is no such source; the page may be added again at once.
    expect(await service.admin('DELETE', `/api/admin/sources/${acmeId}?purge=true`)).toMatchObject({ status: 404, body: { error: 'source_not_found' } });
    expect((await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: acme.url })).status).toBe(201);
    expect(await service.admin('DELETE', '/api/admin/sources/main?purge=true')).toMatchObject({ status: 400 });
  });
});

describe('a source address passes the outbound guard of a webhook target', () => {
  let acme: TestStatuspage;
  let service: TestApp;
  beforeAll(async () => {
    acme = await startTestStatuspage();
    service = await startTestApp(DEAD_URL);
  });
  afterAll(async () => {
    await service?.close();
    await acme?.close();
  });

  it('refuses loopback, private names and plain http without WEBHOOK_ALLOW_PRIVATE, never asking the page', async () => {
    const refused: Record<string, string> = {
      [acme.url]: `url is not allowed: scheme http: is not allowed: expected https: ${HINT}`,
      [`https://localhost:${new URL(acme.url).port}`]: `url is not allowed: localhost is a loopback name (RFC 6761) ${HINT}`,
      'https://status.internal': `url is not allowed: status.internal is a name reserved for private networks (.internal) ${HINT}`,
    };
    for (const [url, detail] of Object.entries(refused)) {
      const answer = await service.admin('POST', '/api/admin/sources', { kind: 'statuspage', url });
      expect(answer, url).toEqual({ status: 400, body: { ok: false, error: 'invalid_request', detail } });
    }
    expect(await acme.requests()).toEqual([]);
    expect((await service.get('/api/sources')).body.sources.map((s: { id: string }) => s.id)).toEqual(['main']);
  });
});
