/**
 * /admin, the overview, through the service's app over a real SQLite file and a real poller reading
 * the simulated vendor: the feed's state (never read, ok, stale, blind) with its last error, the
 * last polls, the outbox's depth, the failing subscriptions with their last error (at most ten;
 * their news is seeded into the archive, seed-archive.ts, as no poll is under test there).
 * "Unknown" for a part the store cannot read is test/integration/admin-overview-unknown.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { pageSection as section, signInAdmin } from '../helpers/admin-page-client.ts';
import { useAppOnVendor } from '../helpers/app-on-vendor.ts';
import { seedArchive } from '../helpers/seed-archive.ts';

/** Nothing listens on port 9 (discard) on loopback: every delivery there fails at once (refused, or on workerd a lost connection). */
const REFUSING_URL = 'http://127.0.0.1:9/hook';

describe('admin overview', () => {
  let skewMs = 0;
  beforeEach(() => {
    skewMs = 0;
  });
  const t = useAppOnVendor({ env: () => ({ WEBHOOK_ALLOW_PRIVATE: 'true' }), clock: { now: () => Date.now() + skewMs } });

  const overview = async () => {
    const page = await (await signInAdmin(t.service)).get('/admin');
    expect(page.status).toBe(200);
    return page.html;
  };

  it('says the feed was never read, and that nothing waits, before the first poll', async () => {
    const html = await overview();
    expect(section(html, 'overview-feed-title')).toContain('never read No poll has run yet.');
    expect(html).toContain('label-feed-never-read');
    expect(section(html, 'overview-polls-title')).toContain('No poll has run yet.');
    expect(section(html, 'overview-outbox-title')).toMatch(/Pending 0 \(0 due now\) Retrying 0 .*Dead 0 .*Oldest due none waiting/);
    expect(section(html, 'overview-failing-title')).toContain('No subscription is failing.');
    for (const href of ['/admin/subscriptions', '/admin/deliveries', '/admin/polls', '/admin/new-subscription']) expect(html).toContain(`href="${href}"`);
  });

  it('follows the feed from never read with an error, to ok, to stale, to blind, each with the last error', async () => {
    await t.vendor.fault({ target: '*', kind: 'status', status: 503 });
    await t.service.poll();
    let html = await overview();
    expect(section(html, 'overview-feed-title')).toContain('never read No poll has read the feed successfully yet.');
    expect(section(html, 'overview-feed-title')).toMatch(/Last error: .*503/);

    await t.vendor.clearFaults();
    expect((await t.service.poll()).outcome).toBe('ok');
    html = await overview();
    expect(section(html, 'overview-feed-title')).toMatch(/^.*ok The feed is being read: the last good read was at/);
    expect(html).not.toContain('Last error');
    const polls = section(html, 'overview-polls-title');
    expect(polls).toContain('ok');
    expect(polls).toContain('failed');
    expect(html.match(/href="\/admin\/polls\/[^"]+"/g)).toHaveLength(2);

    await t.vendor.fault({ target: '*', kind: 'html' });
    await t.service.poll();
    html = await overview();
    expect(section(html, 'overview-feed-title')).toMatch(/stale The last attempt to read the feed failed; the last good read was at .* Last error: /);
    expect(html).toContain('label-feed-stale');

    skewMs = 6 * 60_000;
    html = await overview();
    expect(section(html, 'overview-feed-title')).toMatch(/blind No good read since .* \(6 min\): the public pages say the state is unknown\. Last error: /);
    expect(html).toContain('feed-state-blind');
  });

  it('lists failing subscriptions with their last error, ten at most, and counts what retries', async () => {
    expect((await seedArchive(t.service.store, [])).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${REFUSING_URL}${i}` });
      ids.push(res.body.subscription.id);
    }
    await seedArchive(t.service.store, [rawIncident({ id: 41 })]);
    await t.service.deliverNow();

    const html = await overview();
    const failing = section(html, 'overview-failing-title');
    expect(html.match(/<li class="admin-card failing">/g)).toHaveLength(10);
    expect(failing).toContain('Last error:');
    // The error the API reports for its latest delivery, word for word (the runtime's own words differ).
    const [latest] = (await t.service.admin('GET', `/api/deliveries?subscription=${ids[0]}`)).body.deliveries;
    expect(latest.last_error).toBeTruthy();
    expect(failing).toContain(`Last error: ${latest.last_error}`);
    expect(failing).toContain('never delivered to.');
    expect(html).toContain('href="/admin/subscriptions?health=failing"');
    expect(ids.filter((id) => html.includes(`href="/admin/subscriptions/${id}"`))).toHaveLength(10);
    expect(section(html, 'overview-outbox-title')).toMatch(/Pending 12 \(0 due now\) Retrying 12 /);

    // The whole list, paginated, is one link away.
    const all = await (await signInAdmin(t.service)).get('/admin/subscriptions?health=failing');
    expect(all.html.match(/<a class="subscription-title" href="\/admin\/subscriptions\//g)).toHaveLength(12);
  });

  it('lists the last five polls only, with a link to all of them', async () => {
    for (let i = 0; i < 7; i++) await t.service.poll();
    const html = await overview();
    expect(html.match(/href="\/admin\/polls\/[^"]+"/g)).toHaveLength(5);
    expect(html).toContain('<a href="/admin/polls">All poll runs</a>');
  });
});
