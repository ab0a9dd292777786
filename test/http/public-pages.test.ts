/**
 * The public pages' wording and counts, through the app over a real SQLite file seeded with the
 * fixture world (seed-archive.ts): an incident that names no service is "All services" everywhere
 * it shows, and a list of incidents says how many there are on all its pages, the page and the API
 * alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicPagesWorld } from '../fixtures/public-pages-world.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

/** The maintenance of the fixture world: it names no service. */
const NO_SERVICE_INCIDENT = { id: '9103', title: 'Scheduled maintenance of the whole service' };

describe('public pages', () => {
  let service: TestApp;
  const html = async (path: string) => {
    const res = await service.fetch(service.url + path);
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
    expect((await seedArchive(service.store, publicPagesWorld(Date.now()))).outcome).toBe('ok');
  });
  afterAll(async () => {
    await service.close();
  });

  it('calls an incident that names no service "All services" on the dashboard, as the list and the incident page do', async () => {
    const dashboard = await html('/');
    expect(dashboard).not.toContain('No service named');
    const row = /<li class="service-row">(?:(?!<li class="service-row">)[\s\S])*?<\/ol>/g;
    const allServices = [...dashboard.matchAll(row)].map((m) => m[0]).find((r) => r.includes(NO_SERVICE_INCIDENT.title));
    expect(allServices).toMatch(/<span class="service-name" id="service-bars-\d+">All services<\/span>/);

    const list = await html(`/incidents?q=${encodeURIComponent('maintenance whole')}`);
    expect(list).toMatch(new RegExp(`${NO_SERVICE_INCIDENT.title}[\\s\\S]*?<span class="services">All services</span>`));
    expect(await html(`/incidents/${NO_SERVICE_INCIDENT.id}`)).toContain('All services');
  });

  it('says how many incidents the filters match on every page, not only on this one', async () => {
    const world = publicPagesWorld(Date.now());
    const files = world.filter((i) => i.services.includes('Files')).length;
    const first = await html('/incidents?limit=5');
    expect(first).toContain(`<h2 id="results-title">${world.length} incidents, newest first</h2>`);
    expect(first).toContain('5 on this page.');
    const next = /<a[^>]*href="([^"]*cursor=[^"]*)"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toBeDefined();
    expect(await html(next!)).toContain(`<h2 id="results-title">${world.length} incidents, continued</h2>`);
    expect(await html('/incidents?service=Files')).toContain(`<h2 id="results-title">${files} incidents matching, newest first</h2>`);
    expect(await html('/incidents?q=cause')).toMatch(/<h2 id="results-title">\d+ incidents matching, newest first<\/h2>/);
  });

  it('answers /api/incidents with the total too, bounded, its old fields unchanged', async () => {
    const world = publicPagesWorld(Date.now());
    const all = await service.get('/api/incidents?limit=3');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ ok: true, total: world.length, total_exact: true });
    expect(all.body.incidents).toHaveLength(3);
    expect(all.body.response_metadata.next_cursor).not.toBe('');
    const files = await service.get('/api/incidents?service=Files&type=outage');
    expect(files.body).toMatchObject({ total: 2, total_exact: true });
    expect(files.body.incidents).toHaveLength(2);
  });
});
