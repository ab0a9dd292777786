/**
 * The admin pages speak of the workspace app in names, through the service's app (a real SQLite
 * file) and the simulated Web API over loopback: an app subscription is "#status-updates (Demo
 * workspace)" on the subscriptions, subscription and deliveries pages and in the flash of its
 * creation, /admin/app names the workspace, the ids sit on a detail line, and what the vendor
 * names is escaped.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { type AdminPageClient, signInAdmin } from '../helpers/admin-page-client.ts';
import { installApp, startAppWorld, type AppWorld } from '../helpers/app-channel.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

const TITLE = '#status-updates (Demo workspace)';

describe('the admin names the workspace app’s subscriptions and installations', () => {
  let vendor: TestVendor;
  let world: AppWorld;
  let service: TestApp;
  let admin: AdminPageClient;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    await vendor.setIncidents([]);
    world = await startAppWorld(['status-updates', 'general'], 'Demo workspace');
    service = await startTestApp(vendor.url, { env: world.env });
    admin = await signInAdmin(service);
  });
  afterEach(async () => {
    await service.close();
    await world.close();
  });

  it('titles an app subscription by its channel and workspace on every page, the ids on a detail line', async () => {
    const installation = await installApp(service.admin, world);
    const conversation = world.channels['status-updates']!;
    const created = await admin.post('/admin/new-subscription', { channel: 'app', target: `${installation}/${conversation}`, timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.html).toContain(`Subscription created for <strong class="target">${TITLE}</strong>.`);
    expect(created.html).toContain(`workspace ${world.teamId} · conversation ${conversation} · installation ${installation}`);
    const [subscription] = (await service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string }[];

    const list = await admin.get('/admin/subscriptions');
    expect(list.html).toContain(`<a class="subscription-title" href="/admin/subscriptions/${subscription!.id}">${TITLE}</a>`);
    expect(list.html).not.toContain(`>${installation}/${conversation}<`);
    expect((await admin.get(`/admin/subscriptions/${subscription!.id}`)).html).toContain(`<strong class="target">${TITLE}</strong>`);

    expect((await service.poll()).outcome).toBe('ok');
    await vendor.setIncidents([rawIncident({ id: 5, title: 'Huddles drop' })]);
    await service.poll();
    const deliveries = await admin.get('/admin/deliveries');
    expect(deliveries.html).toContain(`app: <a class="subscription-title" href="/admin/subscriptions/${subscription!.id}">${TITLE}</a>`);

    const app = await admin.get('/admin/app');
    expect(app.html).toContain('<th scope="row">Demo workspace<span class="id-detail"');
    expect(app.html).toContain(`workspace ${world.teamId} · bot `);
  });

  it('escapes the names the vendor gives', async () => {
    const hostile = await startAppWorld(['status-updates'], '<b>Acme</b> & co');
    const other = await startTestApp(vendor.url, { env: hostile.env });
    try {
      await installApp(other.admin, hostile);
      const app = await (await signInAdmin(other)).get('/admin/app');
      expect(app.html).toContain('<th scope="row">&lt;b&gt;Acme&lt;/b&gt; &amp; co<span class="id-detail"');
      expect(app.html).not.toContain('<b>Acme</b>');
    } finally {
      await other.close();
      await hostile.close();
    }
  });
});
