/**
 * `X-Content-Type-Options: nosniff` on every answer the service's app makes: JSON,
 * feeds, /metrics, errors, the hot paths, cache hits and 304s included. Vendor text travels in
 * JSON and feeds; a browser sniffing one of them as HTML would run it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

describe('X-Content-Type-Options', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
    await seedArchive(service.store, [rawIncident({ id: 1, title: '<script>alert(1)</script> uploads fail', services: ['Files'] })]);
  });

  afterAll(async () => {
    await service?.close();
  });

  /** Each URL twice (a miss, then a hit of the response caches), then with the ETag it got (a 304 where it has one). */
  async function answers(path: string, init?: RequestInit): Promise<Response[]> {
    const first = await service.fetch(service.url + path, init);
    const second = await service.fetch(service.url + path, init);
    const etag = second.headers.get('etag');
    const revalidated = etag ? [await service.fetch(service.url + path, { ...init, headers: { ...init?.headers, 'if-none-match': etag } })] : [];
    return [first, second, ...revalidated];
  }

  it.each([
    ['/api/incidents', [200, 200, 304]],
    ['/api/v2.0.0/current', [200, 200, 304]],
    ['/api/events?limit=1', [200, 200, 304]],
    ['/feed.atom', [200, 200, 304]],
    ['/feed.rss', [200, 200, 304]],
    ['/feed.json', [200, 200, 304]],
    ['/metrics', [200, 200]],
    ['/healthz', [200, 200]],
    ['/widget.json?service=Files', [200, 200, 304]],
    ['/badge.svg', [200, 200, 304]],
    ['/embed', [200, 200, 304]],
    ['/', [200, 200, 304]],
  ])('GET %s', async (path, statuses) => {
    const got = await answers(path);
    expect(got.map((r) => r.status)).toEqual(statuses);
    for (const response of got) expect(response.headers.get('x-content-type-options'), `${path} ${response.status}`).toBe('nosniff');
  });

  it.each([
    ['an unknown route', '/nope', {}, 404, 'not_found'],
    ['a forged cursor', '/api/incidents?cursor=forged', {}, 400, 'invalid_cursor'],
    ['the admin API without a token', '/api/admin/polls', {}, 401, 'unauthorized'],
    ['an unknown incident', '/api/incidents/404404', {}, 404, 'incident_not_found'],
    [
      'a bad subscription body',
      '/api/subscriptions',
      { method: 'POST', headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' }, body: '{' },
      400,
      null,
    ],
  ] as const)('errors: %s', async (_what, path, init, status, code) => {
    const response = await service.fetch(service.url + path, init as RequestInit);
    expect(response.status).toBe(status);
    const body = (await response.json()) as { ok: boolean; error: string };
    expect(body.ok).toBe(false);
    if (code) expect(body.error).toBe(code);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
