/**
 * Service names statuswatch never saw, through the service's app over a real SQLite file
 * seeded with the scenario's incidents (seed-archive.ts): the widget and badge say "unknown", the JSON API
 * and subscriptions refuse the name with the known ones, and a name only the archive knows (a
 * service the vendor has since renamed) is accepted everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

/** The vendor's name before a rename: in no list the code carries, only in the archive. */
const OLD_NAME = 'Legacy Uploads';

describe('unknown service names', () => {
  let service: TestApp;

  beforeAll(async () => {
    const now = Date.UTC(2026, 9, 1, 15, 0, 0);
    service = await startTestApp(NO_FEED_URL, { clock: { now: () => now } });
    const seeded = await seedArchive(
      service.store,
      [
        rawIncident({
          id: 2001,
          status: 'resolved',
          services: [OLD_NAME],
          date_created: '2025-03-01T09:00:00-08:00',
          date_updated: '2025-03-01T11:00:00-08:00',
        }),
        rawIncident({ id: 2002, type: 'outage', services: ['Messaging'], date_updated: '2026-10-01T06:30:00-07:00' }),
      ],
      { now },
    );
    expect(seeded.events.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await service?.close();
  });

  const text = async (path: string) => {
    const res = await service.fetch(service.url + path);
    return { status: res.status, body: await res.text() };
  };

  it('draws a grey "unknown service" badge for a name never seen, not a green "operational"', async () => {
    const { status, body } = await text('/badge.svg?service=Nope');
    expect(status).toBe(200);
    expect(body).toContain('aria-label="Nope: unknown service"');
    expect(body).not.toContain('operational');
    expect(body).not.toContain('#4c1');
  });

  it('gives the widget state "unknown" for that service and overall', async () => {
    const widget = (await service.get('/widget.json?service=Nope')).body;
    expect(widget.state).toBe('unknown');
    expect(widget.services).toEqual([{ name: 'Nope', state: 'unknown' }]);
    expect(widget.incidents).toEqual([]);
  });

  it('still shows a known service in trouble next to an unknown one', async () => {
    const widget = (await service.get('/widget.json?service=Nope,Messaging,Files')).body;
    expect(widget.state).toBe('outage');
    expect(widget.services).toEqual([
      { name: 'Nope', state: 'unknown' },
      { name: 'Messaging', state: 'outage' },
      { name: 'Files', state: 'ok' },
    ]);
  });

  it('refuses an unknown service in the incident list with a 400 naming the known services', async () => {
    const { status, body } = await service.get('/api/incidents?service=Nope');
    expect(status).toBe(400);
    expect(body).toEqual({ ok: false, error: 'unknown_service', detail: expect.stringContaining('"Nope"') });
    // The vendor's list and the archive's old name alike.
    for (const name of ['Files', 'Messaging', 'Login/SSO', OLD_NAME]) expect(body.detail).toContain(name);
  });

  it('refuses an unknown service on the /incidents page as the API does, naming the same known services', async () => {
    const api = await service.get('/api/incidents?service=files');
    const page = await text('/incidents?service=files');
    expect(page.status).toBe(api.status);
    expect(page.status).toBe(400);
    // The page says the API's sentence, as HTML: the near miss and the names it knows.
    const said = (api.body.detail as string).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    expect(page.body).toContain(said);
    expect(page.body).toContain('did you mean Files?');
    // A known name still lists its incidents on both faces.
    expect((await text('/incidents?service=Messaging')).status).toBe(200);
  });

  it('suggests the right spelling for a near miss', async () => {
    const { status, body } = await service.get('/api/incidents?service=files');
    expect(status).toBe(400);
    expect(body.detail).toContain('did you mean Files?');
  });

  it('accepts a name only the archive has seen, everywhere', async () => {
    const list = await service.get(`/api/incidents?service=${encodeURIComponent(OLD_NAME)}`);
    expect(list.status).toBe(200);
    expect(list.body.incidents.map((i: { id: string }) => i.id)).toEqual(['2001']);

    const widget = (await service.get(`/widget.json?service=${encodeURIComponent(OLD_NAME)}`)).body;
    expect(widget.state).toBe('ok');
    expect(widget.services).toEqual([{ name: OLD_NAME, state: 'ok' }]);
    expect((await text(`/badge.svg?service=${encodeURIComponent(OLD_NAME)}`)).body).toContain(`aria-label="${OLD_NAME}: operational"`);

    const created = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'https://hooks.example.org/statuswatch',
      filters: { services: [OLD_NAME, 'Files'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.subscription.filters.services).toEqual([OLD_NAME, 'Files']);
  });

  it('refuses a subscription filter naming an unknown service, and stores nothing', async () => {
    const before = (await service.admin('GET', '/api/subscriptions')).body.subscriptions.length;
    const refused = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'https://hooks.example.org/filez',
      filters: { services: ['Filez'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ ok: false, error: 'unknown_service', detail: expect.stringContaining('"Filez"') });
    expect(refused.body.detail).toContain('Files');
    expect((await service.admin('GET', '/api/subscriptions')).body.subscriptions).toHaveLength(before);
  });

  it('refuses a change of filters to an unknown service, keeping the old filters', async () => {
    const created = await service.admin('POST', '/api/subscriptions', {
      channel: 'webhook',
      url: 'https://hooks.example.org/patch',
      filters: { services: ['Files'] },
    });
    const id = created.body.subscription.id;
    const patched = await service.admin('PATCH', `/api/subscriptions/${id}`, { filters: { services: ['Nope'] } });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toBe('unknown_service');
    expect((await service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.filters.services).toEqual(['Files']);
  });

  it('keeps the feeds readable: an unknown service gives an empty feed, not an error', async () => {
    const { status, body } = await text('/feed.atom?service=Nope');
    expect(status).toBe(200);
    expect(body).not.toContain('<entry>');
  });
});
