/** The read API's response cache: one body and ETag per archive generation, 304s, bounds. */
import { Hono } from 'hono';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createReadBudget } from '../../src/http/read-budget.ts';
import { responseCache } from '../../src/http/response-cache.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp } from '../helpers/app-service.ts';
import { startTestVendor } from '../helpers/service.ts';

function appWithCache(options: { maxAgeMs?: number; maxBytes?: number; maxEntries?: number } = {}) {
  const state = { generation: 1, now: 0, calls: 0 };
  const app = new Hono();
  const cache = responseCache({
    generation: async () => state.generation,
    clock: { now: () => state.now },
    maxAgeMs: options.maxAgeMs ?? 60_000,
    maxBytes: options.maxBytes ?? 1_000_000,
    maxEntries: options.maxEntries ?? 1_000,
  });
  app.use('*', cache);
  app.get('/page', (c) => {
    state.calls++;
    return c.json({ n: state.calls, size: c.req.query('size') ? 'x'.repeat(Number(c.req.query('size'))) : '' });
  });
  app.get('/bad', (c) => {
    state.calls++;
    return c.json({ ok: false }, 400);
  });
  return { app, state, cache };
}

/**
 * The heap in use after full collections, with the ArrayBuffers outside it (the cached bodies'
 * bytes): the oracle of what the cache really holds, independent of its own accounting. Turns of
 * the event loop between them let cloned bodies' finalizers run.
 */
async function heapAfterGc(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const MB = 1024 * 1024;
/** The longest URL the cache keeps, as the README states it (written out: the test must not follow the code's constant). */
const MAX_KEY_CHARS = 2048;

/** A URL of `chars` characters that no other request uses: how an attacker pads theirs to miss every cache. */
function uniqueUrl(i: number, chars: number): string {
  const start = `http://localhost/page?n=${i}&pad=`;
  return start + 'z'.repeat(chars - start.length);
}

describe('response cache', () => {
  it('computes a body and its strong ETag once per generation, and answers If-None-Match with 304', async () => {
    const { app, state } = appWithCache();
    const first = await app.request('/page');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{12}-1-1"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const second = await app.request('/page');
    expect(await second.json()).toEqual({ n: 1, size: '' });
    expect(state.calls).toBe(1);
    const notModified = await app.request('/page', { headers: { 'if-none-match': `W/"x", ${etag}` } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');

    state.generation = 2;
    const fresh = await app.request('/page', { headers: { 'if-none-match': etag } });
    expect(fresh.status).toBe(200);
    expect(await fresh.json()).toEqual({ n: 2, size: '' });
    expect(fresh.headers.get('etag')).not.toBe(etag);
  });

  it('builds an answer once for the requests that come while it is built, and answers them all from it', async () => {
    const cache = responseCache({ generation: async () => 1, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 1_000_000, maxEntries: 1_000 });
    let builds = 0;
    let finish = () => {};
    const slowBuild = new Promise<void>((resolve) => (finish = resolve));
    const app = new Hono().use('*', cache).get('/slow', async (c) => {
      builds++;
      await slowBuild;
      return c.json({ builds });
    });
    const requests = Array.from({ length: 5 }, () => app.request('/slow'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    finish();
    const answers = await Promise.all(requests);
    expect(builds).toBe(1);
    expect(await Promise.all(answers.map((r) => r.json()))).toEqual(Array(5).fill({ builds: 1 }));
    expect(new Set(answers.map((r) => r.headers.get('etag'))).size).toBe(1);
  });

  it('rebuilds an answer once when a poll moved the archive, for the requests that come while it is rebuilt', async () => {
    // The generation is read as D1 reads it, a real wait: every request reads it, then finds its
    // entry built for the generation before.
    const state = { generation: 1 };
    const generation = () => new Promise<number>((resolve) => setTimeout(() => resolve(state.generation), 5));
    const cache = responseCache({ generation, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 1_000_000, maxEntries: 1_000 });
    let builds = 0;
    const app = new Hono().use('*', cache).get('/slow', async (c) => {
      builds++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return c.json({ builds });
    });
    expect(await (await app.request('/slow')).json()).toEqual({ builds: 1 });
    state.generation = 2;
    const answers = await Promise.all(Array.from({ length: 5 }, () => app.request('/slow')));
    expect(builds).toBe(2);
    expect(await Promise.all(answers.map((r) => r.json()))).toEqual(Array(5).fill({ builds: 2 }));
  });

  it('lets no client in debt hold back the others asking for the same answer while its refusal is held', async () => {
    let nowMs = 0;
    const budget = createReadBudget({
      clientAddress: (c) => c.req.header('x-client') ?? '',
      nowMs: () => nowMs,
      rule: { refillMsPerSecond: 100, burstMs: 300 },
      pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    const cache = responseCache({ generation: async () => 1, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 1_000_000, maxEntries: 1_000, budget });
    const app = new Hono().use('*', cache).get('/build/:ms', (c) => {
      nowMs += Number(c.req.param('ms'));
      return c.json({ built: c.req.query('n') });
    });
    app.onError((error, c) => c.json({ error: error.message }, (error as { status?: 429 }).status ?? 500));
    const from = (client: string) => ({ headers: { 'x-client': client } });
    // 700 ms of building on a 300 ms burst: the client is in debt, and its next build is refused
    // after a hold of a second.
    expect((await app.request('/build/700?n=1', from('in-debt'))).status).toBe(200);
    const started = performance.now();
    const done = (response: Response) => ({ status: response.status, ms: performance.now() - started });
    const [refused, other] = await Promise.all([
      Promise.resolve(app.request('/build/1?n=2', from('in-debt'))).then(done),
      Promise.resolve(app.request('/build/1?n=2', from('another'))).then(done),
    ]);
    expect(refused.status).toBe(429);
    expect(refused.ms).toBeGreaterThanOrEqual(990);
    expect(other.status).toBe(200);
    expect(other.ms).toBeLessThan(500);
  });

  it('serves nothing older than maxAge, and never caches errors', async () => {
    const { app, state } = appWithCache({ maxAgeMs: 1000 });
    await app.request('/page');
    state.now = 1001;
    expect(await (await app.request('/page')).json()).toMatchObject({ n: 2 });
    expect(await (await app.request('/page', { headers: { 'cache-control': 'no-cache' } })).json()).toMatchObject({ n: 2 });
    await app.request('/bad');
    const bad = await app.request('/bad');
    expect(bad.status).toBe(400);
    expect(state.calls).toBe(4);
  });

  it('keeps within its byte budget, evicting the least recently used', async () => {
    // Each entry counts about 1 KB here (a body of some 220 UTF-8 bytes, key and headers at two bytes a character, plus 512): four fit in 4,500.
    const { app, state, cache } = appWithCache({ maxBytes: 4500 });
    for (const size of [200, 201, 202, 203]) await app.request(`/page?size=${size}`);
    expect(cache.stats().entries).toBe(4);
    await app.request('/page?size=200'); // a hit: now the most recent
    expect(state.calls).toBe(4);
    await app.request('/page?size=204'); // over budget: evicts size=201, the least recently used
    await app.request('/page?size=200');
    expect(state.calls).toBe(5);
    await app.request('/page?size=201');
    expect(state.calls).toBe(6);
    await app.request('/page?size=900'); // more than a quarter of the budget: served, not kept
    await app.request('/page?size=900');
    expect(state.calls).toBe(8);
  });

  it('counts a body at its UTF-8 bytes, so a budget holds as many plain-text answers as its bytes allow', async () => {
    /** What one cached answer with this body counts, in a cache of its own (same key, same headers). */
    async function counted(body: string): Promise<number> {
      const app = new Hono();
      const cache = responseCache({ generation: async () => 1, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 1_000_000, maxEntries: 1_000 });
      app.use('*', cache);
      app.get('/text', (c) => c.text(body));
      await app.request('/text?n=0');
      return cache.stats().bytes;
    }
    const ascii = await counted('a'.repeat(1_000)); // 1,000 UTF-8 bytes, 1,000 UTF-16 units
    expect(await counted('\u{1F600}'.repeat(250))).toBe(ascii); // 1,000 UTF-8 bytes, 500 units
    expect((await counted('\u00e9'.repeat(1_000))) - ascii).toBe(1_000); // 2,000 UTF-8 bytes, 1,000 units

    // Ten such answers fit a budget of ten (and a few bytes for a tag's longer count): none is counted twice over.
    const app = new Hono();
    const cache = responseCache({ generation: async () => 1, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 10 * ascii + 20, maxEntries: 1_000 });
    app.use('*', cache);
    app.get('/text', (c) => c.text('a'.repeat(1_000)));
    for (let i = 0; i < 10; i++) await app.request(`/text?n=${i}`);
    expect(cache.stats().entries).toBe(10);
  });

  it('stays within its bounds, keys included, under 20,000 unique URLs of nearly 2 KB', { timeout: 120_000 }, async () => {
    const maxBytes = 8 * MB;
    const { app, state, cache } = appWithCache({ maxBytes, maxEntries: 100_000 });
    await app.request('/page'); // the router and the first-use costs, before the baseline
    const before = await heapAfterGc();
    for (let i = 0; i < 20_000; i++) {
      const response = await app.request(uniqueUrl(i, MAX_KEY_CHARS - 1));
      expect(response.status).toBe(200);
      if (i % 1_000 === 0) expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(state.calls).toBe(20_001);
    expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
    // The keys alone are 40 MB: the heap may hold the budget (which counts each character twice) and little more.
    expect((await heapAfterGc()) - before).toBeLessThan(maxBytes + 4 * MB);
    // The most recent ones are still served from the cache.
    await app.request(uniqueUrl(19_999, MAX_KEY_CHARS - 1));
    expect(state.calls).toBe(20_001);
  });

  it('holds at most maxEntries, however small they are', async () => {
    const { app, cache } = appWithCache({ maxBytes: 1_000 * MB, maxEntries: 500 });
    for (let i = 0; i < 5_000; i++) await app.request(`/page?n=${i}`);
    expect(cache.stats().entries).toBe(500);
  });

  it('answers a URL longer than 2 KB but never keeps it', async () => {
    const { app, state, cache } = appWithCache();
    const url = uniqueUrl(1, MAX_KEY_CHARS + 1);
    for (const n of [1, 2]) {
      const response = await app.request(url);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ n, size: '' });
    }
    expect(state.calls).toBe(2);
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it('drops entries past twice maxAge on its own, with no byte pressure, while other requests come', { timeout: 120_000 }, async () => {
    const { app, state, cache } = appWithCache({ maxAgeMs: 1000, maxBytes: 200 * MB, maxEntries: 100_000 });
    await app.request('/warm-up');
    const before = await heapAfterGc();
    for (let i = 0; i < 10_000; i++) await app.request(uniqueUrl(i, MAX_KEY_CHARS - 1));
    expect((await heapAfterGc()) - before).toBeGreaterThan(15 * MB); // the 20 MB of keys are held

    state.now = 2000; // served until 1000, kept until 2000 for identical rebuilds
    await app.request('/page');
    expect(cache.stats().entries).toBe(10_001);
    state.now = 2001;
    // The one URL a quiet dashboard keeps asking for: hits, never a byte of pressure.
    for (let i = 0; i < 3_000; i++) expect((await app.request('/page')).status).toBe(200);
    expect(cache.stats().entries).toBe(1);
    expect((await heapAfterGc()) - before).toBeLessThan(5 * MB);
  });

  it('gives a rebuild of the same length but other bytes a new tag, and sends UTF-8 bytes whole', async () => {
    const app = new Hono();
    const state = { generation: 1, body: '{"title":"Störung à Paris"}' };
    app.use('*', responseCache({ generation: async () => state.generation, clock: { now: () => 0 }, maxAgeMs: 60_000, maxBytes: 1_000_000, maxEntries: 10 }));
    app.get('/page', (c) => c.body(state.body, 200, { 'content-type': 'application/json' }));
    const first = await app.request('/page');
    expect(await first.text()).toBe(state.body);
    const etag = first.headers.get('etag')!;
    const hit = await app.request('/page');
    expect(await hit.text()).toBe(state.body);
    expect(hit.headers.get('etag')).toBe(etag);
    state.generation = 2;
    state.body = '{"title":"Störung à Parix"}'; // the same length in characters and in bytes
    const rebuilt = await app.request('/page', { headers: { 'if-none-match': etag } });
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.text()).toBe(state.body);
    expect(rebuilt.headers.get('etag')).not.toBe(etag);
  });

  it('keeps the tag of an identical rebuild just after maxAge, though the generation moved', async () => {
    const { app, state } = appWithCache({ maxAgeMs: 1000 });
    const first = await app.request('/page');
    state.calls = 0; // the same body again
    state.generation = 2;
    state.now = 1500;
    for (let i = 0; i < 10; i++) await app.request(`/page?other=${i}`);
    state.calls = 0;
    const again = await app.request('/page', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('response cache in the service', () => {
  it('gives mirror clients 304s until a poll changes the archive', async () => {
    const vendor = await startTestVendor();
    const service = await startTestApp(vendor.url);
    try {
      await vendor.setIncidents([rawIncident({ id: 1 })]);
      await service.poll();
      const first = await service.fetch(`${service.url}/api/v2.0.0/current`);
      const etag = first.headers.get('etag')!;
      await service.poll(); // nothing changed
      expect((await service.fetch(`${service.url}/api/v2.0.0/current`, { headers: { 'if-none-match': etag } })).status).toBe(304);
      await vendor.setIncidents([rawIncident({ id: 1, status: 'resolved' })]);
      await service.poll();
      const changed = await service.fetch(`${service.url}/api/v2.0.0/current`, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect((await changed.json()).status).toBe('ok');
      const admin = await service.fetch(`${service.url}/api/admin/polls`, { headers: { authorization: 'Bearer test-admin-token-0123456789' } });
      expect(admin.headers.get('etag')).toBeNull();
    } finally {
      await service.close();
      await vendor.close();
    }
  });
});

describe('response cache options for the hot paths', () => {
  function hotApp() {
    const state = { generation: 1, now: 0, reads: 0, calls: 0, cookie: false };
    const app = new Hono();
    // An outer middleware with a per-request header: never replayed from the cache.
    app.use('*', async (c, next) => {
      c.header('x-request', String(state.now));
      await next();
    });
    app.use(
      '*',
      responseCache({
        generation: async () => (state.reads++, state.generation),
        clock: { now: () => state.now },
        maxAgeMs: 60_000,
        maxBytes: 1_000_000,
        maxEntries: 1_000,
        cacheControl: 'public, max-age=30',
        generationTtlMs: 1000,
      }),
    );
    app.get('/page', (c) => {
      state.calls++;
      if (state.cookie) c.header('set-cookie', 'a=1');
      return c.body(JSON.stringify({ generation: state.generation }), 200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    });
    return { app, state };
  }

  it('sends the route headers and its Cache-Control on hits and 304s, but not the outer middleware values', async () => {
    const { app, state } = hotApp();
    const first = await app.request('/page');
    expect(first.headers.get('x-request')).toBe('0');
    state.now = 500;
    const hit = await app.request('/page', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(hit.status).toBe(304);
    expect(Object.fromEntries(hit.headers)).toEqual({
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=30',
      'content-type': 'application/json',
      etag: first.headers.get('etag'),
      'x-content-type-options': 'nosniff',
    });
    expect(state.calls).toBe(1);
  });

  it('reads the generation at most once per generationTtlMs', async () => {
    const { app, state } = hotApp();
    await app.request('/page');
    state.generation = 2;
    state.now = 999;
    expect(await (await app.request('/page')).json()).toEqual({ generation: 1 });
    expect(state.reads).toBe(1);
    state.now = 1000;
    expect(await (await app.request('/page')).json()).toEqual({ generation: 2 });
    expect(state.reads).toBe(2);
  });

  it('serves HEAD from the same entry, and never caches a response that sets a cookie', async () => {
    const { app, state } = hotApp();
    const head = await app.request('/page', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    await app.request('/page');
    expect(state.calls).toBe(1);

    state.cookie = true;
    state.generation = 2;
    state.now = 5000;
    await app.request('/page');
    await app.request('/page');
    expect(state.calls).toBe(3);
  });
});
