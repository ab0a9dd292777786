/**
 * The admin's deliveries table and a delivery's page through the service's app (a real SQLite
 * file seeded with the scenario's news (seed-archive.ts), real webhook sends): each row says which event it carries (type, incident
 * linked, title), where it went, its attempts and its last error, with vendor text escaped.
 */
import { describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { useAppWithoutFeed } from '../helpers/app-on-vendor.ts';
import { seedArchive } from '../helpers/seed-archive.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { SUBSCRIPTION_CHOICES_MAX } from '../../src/app/subscription-choices.ts';

const HOSTILE_TITLE = 'Uploads fail <img src=x onerror=alert(1)>';
const REFUSING_URL = 'http://127.0.0.1:9/refused';

/** The rows of the deliveries table, tags removed. */
function rows(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    (m[1] ?? '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

describe('admin deliveries', () => {
  const t = useAppWithoutFeed({ side: startWebhookReceiver, env: () => ({ WEBHOOK_ALLOW_PRIVATE: 'true' }), signIn: true });

  async function deliverNews() {
    expect((await seedArchive(t.service.store, [])).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    const good = (await t.service.admin('POST', '/api/subscriptions', { channel: 'webhook', url: t.side.url })).body.subscription;
    const bad = (await t.service.admin('POST', '/api/subscriptions', { channel: 'channel', url: REFUSING_URL })).body.subscription;
    await seedArchive(t.service.store, [rawIncident({ id: 77, title: HOSTILE_TITLE })]);
    await t.service.deliverNow();
    return { good, bad };
  }

  it('shows each delivery’s event, its incident linked, where it went, its attempts and last error', async () => {
    const { good, bad } = await deliverNews();
    const page = await t.admin.get('/admin/deliveries');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<th scope="col">Event</th>');
    expect(page.html).toContain('<th scope="col">To</th>');
    expect(page.html).toContain('<a href="/incidents/77">#77</a>');
    expect(page.html).toContain('Uploads fail &lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain(`href="/admin/subscriptions/${good.id}"`);
    expect(page.html).toContain(`href="/admin/subscriptions/${bad.id}"`);

    const [refused, sent] = [rows(page.html).find((r) => r.includes(REFUSING_URL)), rows(page.html).find((r) => r.includes(t.side.url))];
    expect(sent).toMatch(
      /^#\d+ done incident\.created #77 Uploads fail &lt;img src=x onerror=alert\(1\)&gt; webhook: 127\.0\.0\.1:\d+\/hook http:\/\/127\.0\.0\.1:\d+\/hook 1 \S+ \S+ UTC sent \S+ \S+ UTC$/,
    );
    // The error the API reports, word for word (the runtime's own words differ: refused, or a lost connection on workerd).
    const [failed] = (await t.service.admin('GET', `/api/deliveries?subscription=${bad.id}`)).body.deliveries;
    expect(failed.last_error).toBeTruthy();
    expect(refused).toMatch(
      /^#\d+ pending incident\.created #77 .* channel: 127\.0\.0\.1:9\/refused http:\/\/127\.0\.0\.1:9\/refused 1 \S+ \S+ UTC next \S+ \S+ UTC /,
    );
    expect(refused?.endsWith(` ${failed.last_error}`)).toBe(true);
  });

  it('says a delivery’s subscription was deleted, and shows its event and target on its own page', async () => {
    const { good } = await deliverNews();
    const list = await t.admin.get(`/admin/deliveries?subscription=${good.id}`);
    const id = /<a href="\/admin\/deliveries\/(\d+)">/.exec(list.html)?.[1];
    const detail = await t.admin.get(`/admin/deliveries/${id}`);
    expect(detail.html).toContain('<a href="/incidents/77">#77</a>');
    const where = new URL(t.side.url);
    expect(detail.html).toContain(
      `webhook: <a class="subscription-title" href="/admin/subscriptions/${good.id}">${where.host}${where.pathname}</a><span class="id-detail" title="${t.side.url}">${t.side.url}</span>`,
    );

    await t.service.admin('DELETE', `/api/subscriptions/${good.id}`);
    const after = await t.admin.get(`/admin/deliveries?subscription=${good.id}`);
    expect(rows(after.html)[0]).toContain(`webhook: ${good.id} (deleted)`);
    expect((await t.admin.get(`/admin/deliveries/${id}`)).html).toContain('(deleted)');
  });

  it('lists the newest 50 attempts of a delivery that was replayed past that, and says how many there were', async () => {
    const { good } = await deliverNews();
    const id = (await t.service.admin('GET', `/api/deliveries?subscription=${good.id}`)).body.deliveries[0].id;
    for (let i = 0; i < 52; i++) {
      expect((await t.service.admin('POST', `/api/deliveries/${id}/replay`)).status).toBe(200);
      await t.service.deliverNow();
    }
    const page = await t.admin.get(`/admin/deliveries/${id}`);
    expect(page.html).toContain('53 attempts, the newest 50 shown');
    const attemptsTable = page.html.slice(page.html.indexOf('id="attempts-title"'));
    expect(attemptsTable.match(/<tr><th scope="row">/g)).toHaveLength(50);
    // The API's attempt log is bounded the same way: the newest 50, oldest first, and the total.
    const api = (await t.service.admin('GET', `/api/deliveries/${id}`)).body.delivery;
    expect(api.attempts).toBe(53);
    expect(api.attempt_log).toHaveLength(50);
    const times = api.attempt_log.map((a: { attempted_at: string }) => Date.parse(a.attempted_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  /** The filter form's part of the page, up to the deliveries. */
  const filterForm = (html: string) => html.slice(html.indexOf('aria-label="Filter deliveries"'), html.indexOf('id="deliveries-title"'));

  it('filters by a subscription picked by its title, keeping ?subscription= links and a deleted one’s id', async () => {
    const { good, bad } = await deliverNews();
    const where = new URL(t.side.url);
    const page = await t.admin.get('/admin/deliveries');
    const form = filterForm(page.html);
    expect(form).toContain('<select id="ad-subscription" name="subscription">');
    expect(form).toContain(`<option value="${good.id}">${where.host}${where.pathname} (${t.side.url})</option>`);
    expect(form).toContain(`<option value="${bad.id}">127.0.0.1:9/refused (${REFUSING_URL})</option>`);
    expect(form).not.toContain('type="text" id="ad-subscription"');

    // The list's Deliveries link: that subscription picked, its deliveries alone.
    const picked = await t.admin.get(`/admin/deliveries?subscription=${good.id}`);
    expect(filterForm(picked.html)).toContain(`<option value="${good.id}" selected="">`);
    expect(rows(picked.html)).toHaveLength(1);
    expect(rows(picked.html)[0]).toContain(t.side.url);
    // The replay form offers the same list, the filter's subscription picked.
    const replay = picked.html.slice(picked.html.indexOf('id="replay-title"'));
    expect(replay).toContain(`<option value="${good.id}" selected="">`);

    await t.service.admin('DELETE', `/api/subscriptions/${good.id}`);
    const gone = await t.admin.get(`/admin/deliveries?subscription=${good.id}`);
    expect(filterForm(gone.html)).toContain(`<option value="${good.id}" selected="">${good.id} (no such subscription now)</option>`);
    expect(rows(gone.html)[0]).toContain(`webhook: ${good.id} (deleted)`);
  });

  it(`searches titles instead past ${SUBSCRIPTION_CHOICES_MAX} subscriptions: one match filters, several are offered, none says so`, async () => {
    const { good } = await deliverNews();
    for (let i = 0; i < SUBSCRIPTION_CHOICES_MAX; i++) {
      const id = `sub_many_${String(i).padStart(3, '0')}`;
      await t.service.store.createSubscription(storedSubscription(id, { target: `https://hooks.example.test/team-${i % 100}` }, Date.now()));
    }
    const page = await t.admin.get('/admin/deliveries');
    const form = filterForm(page.html);
    expect(form).not.toContain('<select id="ad-subscription"');
    expect(form).toContain('<label for="ad-subscription">Subscription: its id or words of its title</label>');

    // Words of one title: that subscription's deliveries, picked by id in the links.
    const port = new URL(t.side.url).port;
    const byTitle = await t.admin.get(`/admin/deliveries?subscription=${encodeURIComponent(`127.0.0.1:${port}/HOOK`)}`);
    expect(rows(byTitle.html)).toHaveLength(1);
    expect(rows(byTitle.html)[0]).toContain(t.side.url);
    expect(byTitle.html).not.toContain('id="matches-title"');
    // Its id still works, as the list's links give it.
    expect(rows((await t.admin.get(`/admin/deliveries?subscription=${good.id}`)).html)).toHaveLength(1);

    // Two subscriptions to one URL: both offered, each told apart by its id.
    const several = await t.admin.get('/admin/deliveries?subscription=team-42');
    expect(several.html).toContain('<h2 id="matches-title">2 subscriptions have “team-42” in their title: pick one</h2>');
    expect(several.html).toContain(
      'href="/admin/deliveries?subscription=sub_many_042">hooks.example.test/team-42 (https://hooks.example.test/team-42) · sub_many_042</a>',
    );
    expect(several.html).toContain('href="/admin/deliveries?subscription=sub_many_142"');
    expect(rows(several.html)).toHaveLength(0);

    const none = await t.admin.get('/admin/deliveries?subscription=nobody%20%3Cb%3E');
    expect(none.html).toContain('No subscription’s id or title has “nobody &lt;b&gt;”');
    expect(none.html).not.toContain('nobody <b>');
  });
});
