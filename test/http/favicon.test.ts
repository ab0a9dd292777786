/**
 * The icon a browser shows for the service: linked from every page, and no 404 for the
 * /favicon.ico that browsers ask for on their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

describe('favicon', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
    await seedArchive(service.store, []);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('answers /favicon.ico without a 404, cached so a browser asks once a day at most', async () => {
    const res = await service.fetch(`${service.url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d{4,}/);
  });

  it('links an SVG icon from the pages, at a fingerprinted URL that serves an SVG', async () => {
    for (const path of ['/', '/incidents', '/subscribe']) {
      const html = await (await service.fetch(service.url + path)).text();
      const href = html.match(/<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/)?.[1];
      expect(href, path).toMatch(/^\/favicon\.svg\?v=\w+$/);
      const icon = await service.fetch(service.url + href!.replace(/&amp;/g, '&'));
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get('content-type'), path).toMatch(/^image\/svg\+xml/);
      expect(icon.headers.get('cache-control'), path).toContain('immutable');
      expect(await icon.text(), path).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
  });
});
