/**
 * seedArchive (test/helpers/seed-archive.ts) fills the archive the route tests read instead of a
 * poll: an archive seeded with a set of incidents answers every read as one that polled the
 * simulated vendor serving the same incidents, the backfill first and then news, outbox rows included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesIncidentResolved, rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const { active, resolved } = filesIncidentResolved('<p>Uploads work again.</p>');
const BACKFILL = [
  rawIncident(),
  active,
  rawIncident({ id: 1590, title: 'Huddles drop', type: 'outage', status: 'resolved', services: ['Huddles'], date_updated: '2026-10-01T05:39:35-07:00' }),
];
const NEWS = [rawIncident(), resolved, BACKFILL[2]!, rawIncident({ id: 1600, title: 'Search is slow', services: ['Search'] })];

/** What the reads answer about the archive, without the ids and instants a run makes up. */
async function reads(app: TestApp) {
  const incidents = (await app.get('/api/incidents?limit=100')).body.incidents;
  const events = (await app.get('/api/events?limit=100')).body.events.map((e: Record<string, unknown>) => ({ ...e, recorded_at: undefined }));
  const versions = (await app.get(`/api/incidents/${active.id}/versions`)).body.versions.map((v: Record<string, unknown>) => ({
    ...v,
    poll_run_id: undefined,
  }));
  const deliveries = (await app.admin('GET', '/api/deliveries')).body.deliveries.map((d: Record<string, unknown>) => [d.event_id, d.status]);
  const polls = (await app.admin('GET', '/api/admin/polls')).body.polls.map((p: Record<string, unknown>) => [p.outcome, p.changes]);
  return { incidents, events, versions, deliveries, polls };
}

describe('seedArchive', () => {
  let vendor: TestVendor;
  let polled: TestApp;
  let seeded: TestApp;
  const now = Date.now();

  beforeAll(async () => {
    vendor = await startTestVendor();
    polled = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => now } });
    seeded = await startTestApp(vendor.url, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, clock: { now: () => now } });
    for (const app of [polled, seeded]) {
      expect((await app.admin('POST', '/api/subscriptions', { channel: 'webhook', url: 'http://127.0.0.1:9/hook' })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await polled.close();
    await seeded.close();
    await vendor.close();
  });

  it('answers as a polled archive: the backfill, then news with its outbox rows', async () => {
    await vendor.setIncidents(BACKFILL);
    const backfill = await polled.poll();
    expect(await seedArchive(seeded.store, BACKFILL, { now })).toMatchObject({ outcome: 'ok', events: expect.any(Array) });
    expect(await reads(seeded)).toEqual(await reads(polled));
    expect((await reads(seeded)).events).toHaveLength(backfill.events.length);

    await vendor.setIncidents(NEWS);
    const news = await polled.poll();
    const seededNews = await seedArchive(seeded.store, NEWS, { now });
    expect(seededNews.events.map((e) => e.id)).toEqual(news.events.map((e: { id: string }) => e.id));
    const after = await reads(seeded);
    expect(after).toEqual(await reads(polled));
    // News reached the subscription: one pending row per new event (incident 1600 created, the Files incident resolved).
    expect(after.deliveries.length).toBeGreaterThanOrEqual(2);
  });
});
