/** The read API's response cache: one body and ETag per archive generation, 304s, bounds. */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { responseCache } from '../../src/http/response-cache.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor } from '../helpers/service.ts';

function appWithCache(options: { maxAgeMs?: number; maxBytes?: number } = {}) {
  const state = { generation: 1, now: 0, calls: 0 };
  const app = new Hono();
  app.use(
    '*',
    responseCache({
      generation: async () => state.generation,
      clock: { now: () => state.now },
      maxAgeMs: options.maxAgeMs ?? 60_000,
      maxBytes: options.maxBytes ?? 1_000_000,
    }),
  );
  app.get('/page', (c) => {
    state.calls++;
    return c.json({ n: state.calls, size: c.req.query('size') ? 'x'.repeat(Number(c.req.query('size'))) : '' });
  });
  app.get('/bad', (c) => {
    state.calls++;
    return c.json({ ok: false }, 400);
  });
  return { app, state };
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
    const { app, state } = appWithCache({ maxBytes: 1000 });
    for (const size of [200, 201, 202, 203]) await app.request(`/page?size=${size}`); // ~220 bytes each: all fit
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
});

describe('response cache in the service', () => {
  it('gives mirror clients 304s until a poll changes the archive', async () => {
    const vendor = await startTestVendor();
    const service = await startTestService(vendor.url);
    try {
      await vendor.setIncidents([rawIncident({ id: 1 })]);
      await service.poll();
      const first = await fetch(`${service.url}/api/v2.0.0/current`);
      const etag = first.headers.get('etag')!;
      await service.poll(); // nothing changed
      expect((await fetch(`${service.url}/api/v2.0.0/current`, { headers: { 'if-none-match': etag } })).status).toBe(304);
      await vendor.setIncidents([rawIncident({ id: 1, status: 'resolved' })]);
      await service.poll();
      const changed = await fetch(`${service.url}/api/v2.0.0/current`, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect((await changed.json()).status).toBe('ok');
      const admin = await fetch(`${service.url}/api/admin/polls`, { headers: { authorization: 'Bearer test-admin-token-0123456789' } });
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
