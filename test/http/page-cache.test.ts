/** The public pages' cache under a client that varies the query: bounded, and the crowd's page stays. */
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { Poller } from '../../src/app/poller.ts';
import { PUBLIC_PAGE_PATHS, publicPageCache } from '../../src/http/page-cache.ts';
import { dashboardRoutes } from '../../src/http/routes/dashboard.tsx';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { openAppPorts, type OpenedAppPorts } from '../helpers/app-ports.ts';

const idlePoller: Poller = { pollOnce: async () => ({ status: 'skipped', reason: 'another poll is running' }) };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
/**
 * A few pages' worth: with an empty archive `/` is about 85 KB (the bars of every known service),
 * `/incidents` 6 KB; the cache counts two bytes a character and keeps no page over a quarter of it.
 */
const MAX_BYTES = 1024 * 1024;

describe('public page cache', () => {
  let opened: OpenedAppPorts | undefined;
  afterEach(() => opened?.close());

  async function pagesApp() {
    opened = await openAppPorts(quiet);
    const deps = await buildAppDeps({ ...opened.ports, poller: idlePoller }, { startedAt: 0 });
    const app = new Hono();
    const cache = publicPageCache({ store: deps.store, clock: deps.clock, maxBytes: MAX_BYTES });
    for (const path of PUBLIC_PAGE_PATHS) app.use(path, cache);
    app.route('/', dashboardRoutes(deps));
    return app;
  }

  it('lets a flood of distinct queries push out only the least used pages, never the one the crowd reloads', async () => {
    const app = await pagesApp();
    const home = await app.request('/');
    const homeTag = home.headers.get('etag')!;
    const search = await app.request('/incidents?q=first');
    const searchTag = search.headers.get('etag')!;
    const searchBytes = (await search.text()).length;
    expect(searchTag).toMatch(/^"[^"]+"$/);
    expect((await app.request('/incidents?q=first', { headers: { 'if-none-match': searchTag } })).status).toBe(304);

    // Far more distinct pages than the budget holds, while the crowd keeps reloading `/`.
    const flood = Math.ceil((2 * MAX_BYTES) / searchBytes);
    const floodTags: string[] = [];
    for (let i = 0; i < flood; i++) {
      const page = await app.request(`/incidents?q=flood${i}`);
      expect(page.status).toBe(200);
      floodTags.push(page.headers.get('etag')!);
      expect((await app.request('/', { headers: { 'if-none-match': homeTag } })).status).toBe(304);
    }

    // The first search was pushed out: built again, under a new tag.
    const again = await app.request('/incidents?q=first', { headers: { 'if-none-match': searchTag } });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).not.toBe(searchTag);
    // Of the flood, only the latest pages are still held: the oldest is built again too.
    expect((await app.request('/incidents?q=flood0', { headers: { 'if-none-match': floodTags[0]! } })).status).toBe(200);
    expect((await app.request(`/incidents?q=flood${flood - 1}`, { headers: { 'if-none-match': floodTags.at(-1)! } })).status).toBe(304);
  });
});
