/**
 * The admin pages speak of the workspace app in names, through the service's app (a real SQLite
 * file) and the simulated Web API over loopback: an app subscription is "#status-updates (Demo
 * workspace)" on the subscriptions, subscription and deliveries pages and in the flash of its
 * creation, /admin/app names the workspace, the ids sit on a detail line, and what the vendor
 * names is escaped.
 */
import { describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { signInAdmin } from '../helpers/admin-page-client.ts';
import { installApp, startAppWorld } from '../helpers/app-channel.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { startTestApp } from '../helpers/app-service.ts';

const TITLE = '#status-updates (Demo workspace)';

describe('the admin names the workspace app’s subscriptions and installations', () => {
  const t = useAppOnVendor({ side: () => startAppWorld(['status-updates', 'general'], 'Demo workspace'), env: (world) => world.env, signIn: true });

  it('titles an app subscription by its channel and workspace on every page, the ids on a detail line', async () => {
    const installation = await installApp(t.service.admin, t.side);
    const conversation = t.side.channels['status-updates']!;
    const created = await t.admin.post('/admin/new-subscription', { channel: 'app', target: `${installation}/${conversation}`, timezone: 'UTC' });
    expect(created.status).toBe(201);
    expect(created.html).toContain(`Subscription created for <strong class="target">${TITLE}</strong>.`);
    expect(created.html).toContain(`workspace ${t.side.teamId} · conversation ${conversation} · installation ${installation}`);
    const [subscription] = (await t.service.admin('GET', '/api/subscriptions')).body.subscriptions as { id: string }[];

    const list = await t.admin.get('/admin/subscriptions');
    expect(list.html).toContain(`<a class="subscription-title" href="/admin/subscriptions/${subscription!.id}">${TITLE}</a>`);
    expect(list.html).not.toContain(`>${installation}/${conversation}<`);
    expect((await t.admin.get(`/admin/subscriptions/${subscription!.id}`)).html).toContain(`<strong class="target">${TITLE}</strong>`);

    expect((await t.service.poll()).outcome).toBe('ok');
    await t.vendor.setIncidents([rawIncident({ id: 5, title: 'Huddles drop' })]);
    await t.service.poll();
    const deliveries = await t.admin.get('/admin/deliveries');
    expect(deliveries.html).toContain(`app: <a class="subscription-title" href="/admin/subscriptions/${subscription!.id}">${TITLE}</a>`);

    const app = await t.admin.get('/admin/app');
    expect(app.html).toContain('<th scope="row">Demo workspace<span class="id-detail"');
    expect(app.html).toContain(`workspace ${t.side.teamId} · bot `);
  });

  it('escapes the names the vendor gives', async () => {
    const hostile = await startAppWorld(['status-updates'], '<b>Acme</b> & co');
    const other = await startTestApp(t.vendor.url, { env: hostile.env });
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
