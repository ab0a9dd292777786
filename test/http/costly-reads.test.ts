/**
 * What answers the server must build may cost each client: parameters no read
 * takes never make a new cache entry, and a client building answers in a loop is refused once it
 * has spent its share, while answers from the cache and other clients go on. Through the app over
 * an archive seeded with the scenario's incidents (seed-archive.ts), in both runtimes.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadBudget } from '../../src/http/read-budget.ts';
import { rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** 40 resolved incidents, one a day from 2026-03-01, alternately Files and Messaging. */
function incidents(): RawIncident[] {
  return Array.from({ length: 40 }, (_, i) => {
    const day = new Date(Date.UTC(2026, 2, 1 + i));
    const date = (hour: number) => `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}T${pad(hour)}:00:00-08:00`;
    return rawIncident({
      id: 2000 + i,
      title: `Slow uploads ${i}`,
      status: 'resolved',
      services: [i % 2 === 0 ? 'Files' : 'Messaging'],
      date_created: date(9),
      date_updated: date(10),
      notes: [{ body: '<p>Resolved.</p>', date_created: date(10) }],
    });
  });
}

describe('costly reads', () => {
  let service: TestApp;
  /** A GET from the client at `address` (TRUST_PROXY is on: the last X-Forwarded-For entry counts). */
  const get = (path: string, address = '192.0.2.10') => service.fetch(service.url + path, { headers: { 'x-forwarded-for': address } });
  const etagOf = async (path: string, address?: string) => {
    const response = await get(path, address);
    expect(response.status, path).toBe(200);
    await response.arrayBuffer();
    return response.headers.get('etag');
  };

  beforeAll(async () => {
    // 5 ms of building a second, after a burst of 150 ms: some cold answers, then the refusals.
    service = await startTestApp(NO_FEED_URL, { env: { TRUST_PROXY: 'true', READ_BUDGET_MS_PER_SECOND: '20' } });
    expect((await seedArchive(service.store, incidents())).outcome).toBe('ok');
  });
  afterAll(async () => {
    await service.close();
  });

  describe('query parameters', () => {
    it('refuses a parameter the JSON API does not take, naming it and the ones it takes', async () => {
      const response = await get('/api/incidents?service=Files&limit=1000&bust=1', '192.0.2.21');
      expect(response.status).toBe(400);
      const body = (await response.json()) as { ok: boolean; error: string; detail: string };
      expect(body).toMatchObject({ ok: false, error: 'invalid_request' });
      expect(body.detail).toContain('"bust"');
      expect(body.detail).toContain('service');
      // A misspelt filter is refused rather than ignored into "every incident".
      expect((await get('/api/incidents?services=Files', '192.0.2.21')).status).toBe(400);
      expect((await get('/api/events?bust=1', '192.0.2.21')).status).toBe(400);
      expect((await get('/api/reliability?bust=1', '192.0.2.21')).status).toBe(400);
    });

    it('answers the same parameters in any order, empty ones left out, from one entry', async () => {
      const first = await etagOf('/api/incidents?limit=5&service=Files', '192.0.2.22');
      expect(await etagOf('/api/incidents?service=Files&limit=5', '192.0.2.22')).toBe(first);
      expect(await etagOf('/api/incidents?q=&service=Files&limit=5&cursor=', '192.0.2.22')).toBe(first);
    });

    it('leaves parameters out of the key where it ignores them: the mirror, feeds, widget, badge, embed and pages', async () => {
      const paths = ['/api/v2.0.0/current', '/api/history', '/feed.atom', '/widget.json', '/badge.svg', '/embed', '/incidents', '/reliability', '/'];
      for (const [i, path] of paths.entries()) {
        // A client each: the pages cost more than this test's small budget holds.
        const client = `192.0.2.${100 + i}`;
        const first = await etagOf(`${path}?bust=1`, client);
        expect(await etagOf(`${path}?bust=2`, client), path).toBe(first);
        expect(await etagOf(path, client), path).toBe(first);
      }
      // The parameters they take still make answers of their own.
      const files = await etagOf('/widget.json?service=Files&bust=3', '192.0.2.23');
      expect(await etagOf('/widget.json?bust=4&service=Files', '192.0.2.23')).toBe(files);
      expect(await etagOf('/widget.json', '192.0.2.23')).not.toBe(files);
    });
  });

  describe('a budget per client', () => {
    it('refuses a client building answers in a loop with 429 and Retry-After, on whichever face, while cached answers and other clients go on', async () => {
      const looping = '203.0.113.7';
      const cached = '/api/incidents?service=Files';
      expect((await get(cached, looping)).status).toBe(200);
      // A new answer each time (a different `since`, or a different search), in turn on the API,
      // the list page, a feed and the widget: one budget pays for them all, and runs out. Its
      // 600 ms burst holds a first build of each face even on a loaded machine, where one takes
      // a hundred milliseconds; at 1 ms a build at the least, 2,000 builds always exhaust it.
      const faces = [
        (i: number) => `/api/incidents?since=2020-01-01T00:${pad(Math.floor(i / 60))}:${pad(i % 60)}Z`,
        (i: number) => `/incidents?since=2020-01-01T00:${pad(Math.floor(i / 60))}:${pad(i % 60)}Z`,
        (i: number) => `/feed.atom?service=${i % 2 ? 'Files' : 'Messaging'},Login${i}`,
        (i: number) => `/widget.json?service=Files,Messaging,Login${i}`,
      ];
      const built = new Set<number>();
      let refused: Response | undefined;
      for (let i = 0; i < 2_000 && !refused; i++) {
        const response = await get(faces[i % faces.length]!(i), looping);
        if (response.status === 429) refused = response;
        else {
          expect(response.status).toBe(200);
          built.add(i % faces.length);
          await response.arrayBuffer();
        }
      }
      expect(refused, 'never refused').toBeDefined();
      expect(built.size, 'every face built answers before the refusal').toBe(faces.length);
      expect(await refused!.json()).toMatchObject({ ok: false, error: 'rate_limited' });
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // An answer the cache holds costs nothing: never refused.
      expect((await get(cached, looping)).status).toBe(200);
      // Another client builds its own answers.
      expect((await get('/api/incidents?q=uploads', '198.51.100.9')).status).toBe(200);
    });

    it('answers the requests that come together for one new answer, from one address, with one build and no refusal', async () => {
      // An office behind one address opening a page with the widget, just as its entry aged out.
      const office = '192.0.2.44';
      const path = '/widget.json?service=Files,Messaging,Office';
      const responses = await Promise.all(Array.from({ length: 12 }, () => get(path, office)));
      expect(responses.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect(new Set(responses.map((r) => r.headers.get('etag'))).size).toBe(1);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
    });

    it('holds a refusal until the debt is paid, at most a second, then lets the client in again', async () => {
      // Time the test moves: each build costs what its route says.
      let nowMs = 0;
      const budget = createReadBudget({
        clientAddress: () => '192.0.2.50',
        nowMs: () => nowMs,
        rule: { refillMsPerSecond: 100, burstMs: 300 },
        pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      });
      const app = new Hono().get('/build/:ms', async (c) => {
        const paid = await budget.admit(c);
        nowMs += Number(c.req.param('ms'));
        paid();
        return c.text('built');
      });
      app.onError((error, c) =>
        c.json({ error: error.message }, (error as { status?: 429 }).status ?? 500, (error as { headers?: Record<string, string> }).headers),
      );
      // 300 ms of burst: a 250 ms build (50 left, the 25 ms it refilled meanwhile over the burst),
      // then one of 450 ms, let in on 50 ms: it overdraws to 50 + 45 refilled - 450 = -355 ms.
      expect((await app.request('/build/250')).status).toBe(200);
      expect((await app.request('/build/450')).status).toBe(200);
      // 355 ms of debt at 100 ms a second: 3.56 s; the refusal is held one (real) second of them.
      const started = performance.now();
      const refusal = await app.request('/build/1');
      expect(refusal.status).toBe(429);
      expect(performance.now() - started).toBeGreaterThanOrEqual(990);
      expect(refusal.headers.get('retry-after')).toBe('3');
      // Once 3.6 s of this budget's time have passed, the debt is paid.
      nowMs += 3_600;
      expect((await app.request('/build/1')).status).toBe(200);
    });

    it('remembers a bounded number of clients, forgetting the least recently seen first', async () => {
      const budget = createReadBudget({ clientAddress: (c) => c.req.header('x-client') ?? '', maxClients: 100 });
      const app = new Hono().get('/', async (c) => {
        (await budget.admit(c))();
        return c.text('built');
      });
      for (let i = 0; i < 1_000; i++) {
        expect((await app.request('/', { headers: { 'x-client': `10.0.${i >> 8}.${i & 255}` } })).status).toBe(200);
      }
      expect(budget.clients()).toBe(100);
    });
  });
});
