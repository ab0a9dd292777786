/**
 * The admin form's `app` kind through the service's app (a real SQLite file) and the
 * simulated Web API over loopback: it offers the channels the app can post to, all of them however
 * short the vendor's pages, creates the subscription with a form post, and keeps where it posts
 * fixed when edited.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AdminPageClient, signInAdmin } from '../helpers/admin-page-client.ts';
import { installApp, startAppWorld, type AppWorld } from '../helpers/app-channel.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL } from '../helpers/seed-archive.ts';

const CHANNELS = Array.from({ length: 7 }, (_, i) => `team-${i}`);

describe('the admin form for app subscriptions', () => {
  let world: AppWorld;
  let service: TestApp;
  let admin: AdminPageClient;

  beforeEach(async () => {
    world = await startAppWorld([...CHANNELS, 'outside']);
    expect((await world.control('PATCH', `/channels/${world.channels.outside}`, { botIsMember: false })).status).toBe(200);
    service = await startTestApp(NO_FEED_URL, { env: world.env });
    admin = await signInAdmin(service);
  });
  afterEach(async () => {
    await service.close();
    await world.close();
  });

  it('says to install the app first when it is installed nowhere', async () => {
    const page = await admin.get('/admin/new-subscription?channel=app');
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/admin/app"');
  });

  it('offers every channel the app is in, across short vendor pages, and creates the subscription', async () => {
    const installation = await installApp(service.admin, world);
    // Two per page and a short page now and then: only the vendor's empty cursor ends the list.
    expect((await world.control('PUT', '/settings', { maxPageItems: 2 })).status).toBe(200);
    const page = await admin.get('/admin/new-subscription?channel=app');
    const offered = [...page.html.matchAll(/<option value="([^"]+)"[^>]*>#([^<]+)<\/option>/g)].map((m) => m[2]);
    expect(offered).toEqual(CHANNELS);
    const created = await admin.post('/admin/new-subscription', { channel: 'app', target: `${installation}/${world.channels['team-3']}`, timezone: 'UTC' });
    expect(created.status, created.html.slice(0, 500)).toBe(201);
    const [subscription] = (await service.admin('GET', '/api/subscriptions')).body.subscriptions;
    expect(subscription).toMatchObject({ channel: 'app', installation, conversation: world.channels['team-3'] });

    // Edited: the filters change, where it posts does not.
    const edited = await admin.post(`/admin/subscriptions/${subscription.id}`, { service: 'Messaging', timezone: 'UTC', target: 'x/y' });
    expect(edited.status).toBe(303);
    const after = (await service.admin('GET', `/api/subscriptions/${subscription.id}`)).body.subscription;
    expect(after).toMatchObject({ conversation: world.channels['team-3'], filters: { services: ['Messaging'] } });
  });

  it('re-renders the form with the reason when no channel was chosen', async () => {
    await installApp(service.admin, world);
    const refused = await admin.post('/admin/new-subscription', { channel: 'app', target: '', timezone: 'UTC' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('installation');
  });
});
