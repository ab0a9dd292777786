/**
 * The JSON API through the service's app, over a real archive seeded with the incidents of the
 * scenario (seed-archive.ts): cursor pagination, filters, search, bad input, admin auth, one error
 * shape. The admin poll button polls the simulated vendor for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app-service.ts';
import { cursorPayload } from '../helpers/cursor-payload.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const SERVICES = ['Files', 'Messaging', 'Search', 'Huddles'];
const pad = (n: number) => String(n).padStart(2, '0');

/** 250 incidents, one a day from 2026-01-01, so that three pages of 100 are needed. */
function archiveOf250(): RawIncident[] {
  return Array.from({ length: 250 }, (_, i) => {
    const day = new Date(Date.UTC(2026, 0, 1 + i));
    const date = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}T09:00:00-08:00`;
    return rawIncident({
      id: 1000 + i,
      title: i % 10 === 0 ? `Uploads failing ${i}` : `Incident ${i}`,
      type: i % 25 === 0 ? 'outage' : 'incident',
      status: i === 249 ? 'active' : 'resolved',
      services: [SERVICES[i % SERVICES.length]!],
      date_created: date,
      date_updated: date,
      notes: [{ body: i === 7 ? '<p>The <strong>zeppelin</strong> cache&nbsp;was cold.</p>' : '<p>Looking into it.</p>', date_created: date }],
    });
  });
}

describe('HTTP API', () => {
  let vendor: TestVendor;
  let service: TestApp;

  beforeAll(async () => {
    // The vendor lists nothing: only the admin poll button reads it.
    vendor = await startTestVendor();
    service = await startTestApp(vendor.url);
    expect((await seedArchive(service.store, archiveOf250())).events).toHaveLength(250);
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
  });

  async function allPages(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    for (let page = 0; page < 50; page++) {
      const { status, body } = await service.get(`/api/incidents?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      ids.push(...body.incidents.map((i: { id: string }) => i.id));
      cursor = body.response_metadata.next_cursor;
      if (!cursor) return ids;
    }
    throw new Error('pagination did not end');
  }

  describe('/api/incidents', () => {
    it('pages through everything newest first, each incident once, with an empty cursor at the end', async () => {
      const first = await service.get('/api/incidents');
      expect(first.body.incidents).toHaveLength(100);
      expect(first.body.incidents[0]).toMatchObject({ id: '1249', status: 'active', note_count: 1 });
      const ids = await allPages('', 100);
      expect(ids).toHaveLength(250);
      expect(new Set(ids).size).toBe(250);
      expect(ids[0]).toBe('1249');
      expect(ids.at(-1)).toBe('1000');
    });

    it('adjusts bad limits silently: default 100, at most 1000, at least 1', async () => {
      expect((await service.get('/api/incidents?limit=abc')).body.incidents).toHaveLength(100);
      expect((await service.get('/api/incidents?limit=-5')).body.incidents).toHaveLength(100);
      expect((await service.get('/api/incidents?limit=0')).body.incidents).toHaveLength(100);
      expect((await service.get('/api/incidents?limit=5000')).body.incidents).toHaveLength(250);
      expect((await service.get('/api/incidents?limit=2.7')).body.incidents).toHaveLength(2);
    });

    it('filters by service, type, status and time, and pages within a filter', async () => {
      const files = await allPages('service=Files', 20);
      expect(files).toHaveLength(63);
      const outages = (await service.get('/api/incidents?type=OUTAGE')).body.incidents;
      expect(outages.map((i: { type: string }) => i.type)).toEqual(Array(10).fill('outage'));
      expect((await service.get('/api/incidents?status=active')).body.incidents.map((i: { id: string }) => i.id)).toEqual(['1249']);
      const january = await allPages('since=2026-01-01&until=2026-02-01', 10);
      expect(january).toHaveLength(31);
      const twoServices = await allPages('service=Files,Search', 100);
      expect(twoServices).toHaveLength(125);
    });

    it('searches titles and note text (q), combined with filters', async () => {
      const hits = (await service.get('/api/incidents?q=upload')).body.incidents.map((i: { id: string }) => i.id);
      expect(hits).toHaveLength(25);
      expect((await service.get('/api/incidents?q=zeppelin')).body.incidents.map((i: { id: string }) => i.id)).toEqual(['1007']);
      expect((await service.get('/api/incidents?q=zeppelin%20cold')).body.incidents).toHaveLength(1);
      expect((await service.get('/api/incidents?q=nbsp')).body.incidents).toHaveLength(0);
      expect((await service.get('/api/incidents?q=upload&service=Files')).body.incidents).toHaveLength(13);
    });

    it.each([
      ['gibberish', 'not-a-cursor'],
      ['tampered', 'eyJrIjoiaW5jaWRlbnRzIiwiYyI6MCwiaSI6IjAifQ.AAAAAAAAAAAAAAAAAAAAAA'],
      ['padded', 'abc=.def'],
    ])('refuses a %s cursor with invalid_cursor', async (_, cursor) => {
      const res = await service.get(`/api/incidents?cursor=${encodeURIComponent(cursor)}`);
      expect(res).toEqual({ status: 400, body: { ok: false, error: 'invalid_cursor', detail: expect.any(String) } });
    });

    it('refuses an events cursor on the incident list, and a cursor altered by one character', async () => {
      const events = await service.get('/api/events?limit=1');
      const cursor: string = events.body.response_metadata.next_cursor;
      expect((await service.get(`/api/incidents?cursor=${cursor}`)).body.error).toBe('invalid_cursor');
      const page = await service.get('/api/incidents?limit=1');
      const good: string = page.body.response_metadata.next_cursor;
      const altered = good.slice(0, 5) + (good[5] === 'A' ? 'B' : 'A') + good.slice(6);
      expect((await service.get(`/api/incidents?cursor=${altered}`)).body.error).toBe('invalid_cursor');
    });

    it('issues cursors with the fields it always has, so ones a client kept still page', async () => {
      const incidents = (await service.get('/api/incidents?limit=1')).body;
      expect(cursorPayload(incidents.response_metadata.next_cursor)).toEqual({ k: 'incidents', s: expect.any(Number) });
      const events = (await service.get('/api/events?limit=1')).body;
      expect(cursorPayload(events.response_metadata.next_cursor)).toEqual({ k: 'events', s: expect.any(Number) });
      expect(events.resume_cursor).toBe(events.response_metadata.next_cursor);
    });

    it.each([
      ['/api/incidents?since=yesterday', /since: expected a date/],
      ['/api/incidents?until=2026-13-45', /until: expected a date/],
      ['/api/incidents?q=%22%2A%28%29', /q: no words/],
    ])('answers %s with invalid_request and says why', async (path, detail) => {
      const res = await service.get(path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error: 'invalid_request' });
      expect(res.body.detail).toMatch(detail);
    });

    it('survives hostile query text without an error', async () => {
      for (const q of ['"', 'NEAR(a b)', "'; DROP TABLE incidents; --", 'a'.repeat(5000), '\u0000', '*']) {
        const res = await service.get(`/api/incidents?q=${encodeURIComponent(q)}`);
        expect([200, 400]).toContain(res.status);
        expect(res.body.ok === true || ['invalid_request', 'invalid_query'].includes(res.body.error)).toBe(true);
      }
    });
  });

  it.each([
    '/api/incidents?q=%E0%A4%A',
    '/api/incidents/%E0%A4%A',
    '/api/incidents?service=%ZZ',
    '/api/incidents?cursor=%',
    '/api/events?type=%C0',
    '/api/incidents?limit=1e400',
    '/api/incidents?since=%00',
  ])('answers malformed encoding in %s without an internal error', async (path) => {
    const res = await service.get(path);
    expect(res.status).toBeLessThan(500);
    expect(typeof res.body.ok).toBe('boolean');
  });

  describe('/api/incidents/:id', () => {
    it('returns the incident with notes as body and text, and its change history', async () => {
      const { status, body } = await service.get('/api/incidents/1007');
      expect(status).toBe(200);
      expect(body.incident.notes).toEqual([
        expect.objectContaining({ body: '<p>The <strong>zeppelin</strong> cache&nbsp;was cold.</p>', text: 'The zeppelin cache was cold.' }),
      ]);
      expect(body.events.map((e: { type: string; backfill: boolean }) => [e.type, e.backfill])).toEqual([['incident.created', true]]);
    });

    it('gives an incident the same own fields, in the same order, as its events carry', async () => {
      const { body } = await service.get('/api/incidents/1001');
      const created = (await service.get('/api/events?type=incident.created&incident=1001')).body.events[0];
      const summary = created.data.incident;
      expect(Object.keys(summary)).toEqual(['id', 'title', 'type', 'status', 'url', 'services', 'date_created', 'date_updated']);
      expect(Object.entries(body.incident).slice(0, 8)).toEqual(Object.entries(summary));
      const listed = (await service.get('/api/incidents?limit=1000')).body.incidents.find((i: { id: string }) => i.id === '1001');
      expect(Object.entries(listed).slice(0, 8)).toEqual(Object.entries(summary));
      const own = ['source', 'created_at', 'updated_at', 'resolved_at', 'duration_seconds', 'first_seen_at', 'last_seen_at', 'revision', 'note_count'];
      expect(Object.keys(body.incident).slice(8)).toEqual([...own, 'notes']);
      expect(Object.keys(listed).slice(8)).toEqual([...own, 'latest_note']);
    });

    it('answers an unknown id with 404 incident_not_found', async () => {
      expect(await service.get('/api/incidents/999999')).toEqual({
        status: 404,
        body: { ok: false, error: 'incident_not_found', detail: 'no incident "999999" in the archive' },
      });
    });
  });

  describe('/api/events', () => {
    it('lets a consumer catch up from its cursor, oldest first, and then wait for news', async () => {
      const seen: string[] = [];
      let cursor = '';
      let resume = '';
      for (let i = 0; i < 10; i++) {
        const { body } = await service.get(`/api/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...body.events.map((e: { id: string }) => e.id));
        resume = body.resume_cursor;
        cursor = body.response_metadata.next_cursor;
        if (!cursor) break;
      }
      expect(seen).toHaveLength(250);
      expect(seen[0]).toBe('1000.r1.created');

      await seedArchive(service.store, [
        ...archiveOf250(),
        rawIncident({ id: 2000, title: 'Fresh', date_created: '2026-11-01T00:00:00-07:00', date_updated: '2026-11-01T00:00:00-07:00' }),
      ]);
      const news = await service.get(`/api/events?cursor=${resume}`);
      expect(news.body.events.map((e: { id: string; backfill: boolean }) => [e.id, e.backfill])).toEqual([['2000.r1.created', false]]);
      expect((await service.get('/api/events?include_backfill=false')).body.events.map((e: { id: string }) => e.id)).toEqual(['2000.r1.created']);
    });

    it('filters by type and incident, and refuses unknown types', async () => {
      const created = await service.get('/api/events?type=incident.created&incident=1001');
      expect(created.body.events.map((e: { id: string }) => e.id)).toEqual(['1001.r1.created']);
      const bad = await service.get('/api/events?type=incident.exploded');
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toMatch(/unknown incident.exploded/);
    });
  });

  describe('admin and errors', () => {
    const post = (path: string, headers: Record<string, string> = {}) => service.fetch(service.url + path, { method: 'POST', headers });

    it('requires the bearer token', async () => {
      const none = await post('/api/admin/poll');
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await none.json()).toEqual({ ok: false, error: 'unauthorized', detail: expect.any(String) });
      expect((await post('/api/admin/poll', { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
      expect((await post('/api/admin/poll', { authorization: ADMIN_TOKEN })).status).toBe(401);
      const ok = await post('/api/admin/poll', { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ ok: true, outcome: 'ok' });
    });

    it('lists poll runs for admins', async () => {
      const res = await service.fetch(`${service.url}/api/admin/polls?limit=2`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = await res.json();
      expect(body.polls).toHaveLength(2);
      expect(body.polls[0]).toMatchObject({ outcome: 'ok', sources: expect.any(Array) });
    });

    it('answers an unknown poll run with 404 poll_not_found', async () => {
      const res = await service.fetch(`${service.url}/api/admin/polls/nope`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ ok: false, error: 'poll_not_found', detail: 'no poll run with that id' });
    });

    it.each([
      ['POST', '/api/subscriptions'],
      ['PATCH', '/api/subscriptions/sub_none'],
      ['POST', '/api/delivery-replays'],
    ])('%s %s refuses a body that is not JSON, or not declared JSON, with invalid_request', async (method, path) => {
      const send = (body: string, contentType: string) =>
        service.fetch(service.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType }, body });
      const garbled = await send('{"channel": ', 'application/json');
      expect([garbled.status, await garbled.json()]).toEqual([400, { ok: false, error: 'invalid_request', detail: 'the body is not valid JSON' }]);
      const undeclared = await send('{}', 'text/plain');
      expect([undeclared.status, await undeclared.json()]).toEqual([
        400,
        { ok: false, error: 'invalid_request', detail: 'expected a JSON body (Content-Type: application/json)' },
      ]);
      // Half a surrogate pair, which UTF-8 cannot carry: refused where it is, never stored repaired.
      const halfPair = await send('{"channel": "webhook", "filters": {"services": ["Files", "Calls \\ud800"]}}', 'application/json');
      expect([halfPair.status, await halfPair.json()]).toEqual([
        400,
        { ok: false, error: 'invalid_request', detail: 'filters.services.1: not well-formed text (holds half a surrogate pair)' },
      ]);
      const halfPairKey = await send('{"\\udc00": 1}', 'application/json');
      expect((await halfPairKey.json()).detail).toBe('\ufffd: not well-formed text (holds half a surrogate pair)');
    });

    it('answers unknown routes and methods with the same error shape', async () => {
      expect(await service.get('/api/nope')).toEqual({ status: 404, body: { ok: false, error: 'not_found', detail: 'no route for GET /api/nope' } });
      const del = await service.fetch(`${service.url}/api/incidents`, { method: 'DELETE' });
      expect(del.status).toBe(404);
      expect((await del.json()).ok).toBe(false);
    });
  });
});

describe('admin API with no ADMIN_TOKEN', () => {
  it('is off: 403 admin_disabled', async () => {
    const vendor = await startTestVendor();
    const service = await startTestApp(vendor.url, { env: { ADMIN_TOKEN: '' } });
    try {
      const res = await service.fetch(`${service.url}/api/admin/poll`, { method: 'POST', headers: { authorization: 'Bearer anything-at-all-here' } });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ ok: false, error: 'admin_disabled', detail: 'set ADMIN_TOKEN to enable the admin API' });
    } finally {
      await service.close();
      await vendor.close();
    }
  });
});
