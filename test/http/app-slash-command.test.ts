/**
 * `/status [service]` through the service's app over a real SQLite file seeded with the scenario's
 * incidents (seed-archive.ts), signed with node:crypto's HMAC as an independent oracle of the
 * vendor's scheme: valid requests are answered with the state now and a dashboard link; forged,
 * stale, tampered and replayed ones get 401.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';
import { startTestStatuspage } from '../helpers/statuspage-pages.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const SECRET = 'signing-secret-for-tests-8f3a';
const PUBLIC_URL = 'https://status.example.test';

function sign(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

function commandBody(text: string): string {
  return new URLSearchParams({
    token: 'legacy',
    team_id: 'T0001',
    user_id: 'U0001',
    command: '/status',
    text,
    response_url: 'https://hooks.example/x',
  }).toString();
}

describe('the /status slash command', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function app(env: Record<string, string> = { APP_SIGNING_SECRET: SECRET, PUBLIC_URL }, dir?: string): Promise<TestApp> {
    const started = await startTestApp(NO_FEED_URL, { env, dir });
    apps.push(started);
    return started;
  }
  async function send(target: TestApp, body: string, headers: Record<string, string>) {
    const res = await target.fetch(`${target.url}/app/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, text, json: (() => (text.startsWith('{') ? JSON.parse(text) : null))() };
  }
  const now = () => String(Math.floor(Date.now() / 1000));
  const signed = (body: string, timestamp = now(), secret = SECRET) => ({
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': sign(secret, timestamp, body),
  });

  it('answers a signed request with the state now, the incidents (escaped) and a link to the dashboard', async () => {
    const at = new Date().toISOString();
    const target = await app();
    await seedArchive(target.store, [
      rawIncident({
        id: 501,
        title: 'Uploads <!channel> & failing',
        status: 'active',
        type: 'outage',
        services: ['Files'],
        date_created: at,
        date_updated: at,
      }),
    ]);
    const body = commandBody('');
    const res = await send(target, body, signed(body));
    expect(res.status, res.text).toBe(200);
    expect(res.json.response_type).toBe('ephemeral');
    const text = res.json.text as string;
    expect(text).toContain('*The vendor: Outage.*');
    expect(text).toContain('Uploads &lt;!channel&gt; &amp; failing');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain(`<${PUBLIC_URL}/incidents/501|`);
    expect(text).toContain(`<${PUBLIC_URL}/|Open the status dashboard>`);
  });

  it('answers for one service, whatever case it is typed in; a service no incident names is all good', async () => {
    const at = new Date().toISOString();
    const target = await app();
    await seedArchive(target.store, [
      rawIncident({ id: 502, title: 'Slow uploads', status: 'active', type: 'incident', services: ['Files'], date_created: at, date_updated: at }),
    ]);
    const files = commandBody('files');
    const res = await send(target, files, signed(files));
    expect(res.json.text).toContain('*Files: Incident.*');
    const calls = commandBody('Calls');
    const quiet = await send(target, calls, signed(calls));
    expect(quiet.json.text).toContain('*Calls: all good.*');
    expect(quiet.json.text).not.toContain('Slow uploads');
  });

  it('answers a service it never saw as unknown, naming the services it knows', async () => {
    const target = await app();
    await seedArchive(target.store, []);
    const body = commandBody('Teleporter <x>');
    const res = await send(target, body, signed(body));
    expect(res.status).toBe(200);
    expect(res.json.text).toContain('knows no service called “Teleporter &lt;x&gt;”, so its state is unknown');
    expect(res.json.text).toContain('Known services: ');
    expect(res.json.text).toContain('Files');
  });

  it('answers a watched page by its name, in any case, as its widget says it; a name no page has lists the pages', async () => {
    const page = await startTestStatuspage({ name: 'Git<Hub> & Co' });
    try {
      // A second on before each widget read: the widget's answer is cached for one (widget.ts).
      let offsetMs = 0;
      const target = await startTestApp(NO_FEED_URL, {
        env: { APP_SIGNING_SECRET: SECRET, PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE: 'true' },
        clock: { now: () => Date.now() + offsetMs },
      });
      apps.push(target);
      const widgetState = async () => {
        offsetMs += 1_500;
        return (await target.fetch(`${target.url}/widget.json?source=${sourceId}`).then((r) => r.json())).state;
      };
      await seedArchive(target.store, []);
      const sourceId = (await target.admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url })).body.source.id;
      const ask = async (text: string) => {
        const body = commandBody(text);
        const res = await send(target, body, signed(body));
        expect(res.status, res.text).toBe(200);
        return res.json.text as string;
      };

      // Added, never polled: unknown, as its widget says, in the page's words.
      expect(await widgetState()).toBe('unknown');
      expect(await ask('git<hub> & co')).toContain('*Git&lt;Hub&gt; &amp; Co: unknown.* statuswatch has not been able to read its status page');

      // Its story's incident opens: API partly out.
      expect((await fetch(`${page.url}/_sim/advance`, { method: 'POST' })).status).toBe(200);
      expect((await target.admin('POST', `/api/admin/poll?source=${sourceId}`)).body.sources[0].outcome).toBe('ok');
      expect(await widgetState()).toBe('outage');
      const text = await ask('  GIT<HUB> & CO ');
      expect(text).toContain('*Git&lt;Hub&gt; &amp; Co: Outage.*');
      expect(text).toContain('• API: Outage');
      expect(text).toContain('Elevated API error rates');
      expect(text).toContain(`<${PUBLIC_URL}/sources/${sourceId}|Open its page on the status dashboard>`);
      expect(text).not.toContain('<Hub>');

      // No page and no service of that name: said plainly, with the pages' names.
      const none = await ask('GitLab');
      expect(none).toContain('knows no service or watched status page called “GitLab”, so its state is unknown');
      expect(none).toContain('Watched status pages (`/status <page name>`): Git&lt;Hub&gt; &amp; Co.');
      // A vendor's service is still the vendor's.
      expect(await ask('files')).toContain('*Files: all good.*');
    } finally {
      await page.close();
    }
  });

  it('says unknown, not all good, while the feed has never been read', async () => {
    const target = await app();
    const body = commandBody('');
    const res = await send(target, body, signed(body));
    expect(res.status).toBe(200);
    expect(res.json.text).toContain('*The vendor: unknown.*');
    expect(res.json.text).not.toContain('all good');
  });

  it('refuses forged, tampered, unsigned and malformed requests with 401, and processes none of them', async () => {
    const target = await app();
    await seedArchive(target.store, []);
    const body = commandBody('');
    const ts = now();
    const refusals: { name: string; body: string; headers: Record<string, string> }[] = [
      { name: 'wrong secret', body, headers: signed(body, ts, 'not-the-secret') },
      { name: 'tampered body', body: commandBody('Files'), headers: signed(body, ts) },
      { name: 'other timestamp', body, headers: { ...signed(body, ts), 'x-slack-request-timestamp': String(Number(ts) - 1) } },
      { name: 'no signature', body, headers: { 'x-slack-request-timestamp': ts } },
      { name: 'no timestamp', body, headers: { 'x-slack-signature': sign(SECRET, ts, body) } },
      { name: 'timestamp not a number', body, headers: { 'x-slack-request-timestamp': 'soon', 'x-slack-signature': sign(SECRET, 'soon', body) } },
      { name: 'v1 scheme', body, headers: { ...signed(body, ts), 'x-slack-signature': sign(SECRET, ts, body).replace('v0=', 'v1=') } },
    ];
    for (const refusal of refusals) {
      const res = await send(target, refusal.body, refusal.headers);
      expect(res.status, refusal.name).toBe(401);
      expect(res.json?.error, refusal.name).toBe('invalid_request_signature');
      expect(res.text).not.toContain('dashboard');
    }
    // None was remembered: the genuine request with the same timestamp is still answered once.
    expect((await send(target, body, signed(body, ts))).status).toBe(200);
  });

  it('refuses requests older or newer than five minutes, even correctly signed', async () => {
    const target = await app();
    const body = commandBody('');
    const t = Math.floor(Date.now() / 1000);
    for (const offset of [-301 - 5, 301 + 5]) {
      const res = await send(target, body, signed(body, String(t + offset)));
      expect(res.status, String(offset)).toBe(401);
      expect(res.json.detail).toContain('stale');
    }
    // Inside the window, either side, is fine.
    expect((await send(target, body, signed(body, String(t - 240)))).status).toBe(200);
    expect((await send(target, body, signed(body, String(t + 240)))).status).toBe(200);
  });

  it('refuses a replay, also when it reaches another process on the same database', async () => {
    const dir = tempDir();
    const first = await app(undefined, dir);
    const second = await app(undefined, dir);
    const body = commandBody('');
    const headers = signed(body);
    expect((await send(first, body, headers)).status).toBe(200);
    const again = await send(first, body, headers);
    expect([again.status, again.json.error]).toEqual([401, 'replayed_request']);
    const elsewhere = await send(second, body, headers);
    expect([elsewhere.status, elsewhere.json.error]).toEqual([401, 'replayed_request']);
  });

  it('answers nothing while APP_SIGNING_SECRET is unset', async () => {
    const target = await app({});
    const body = commandBody('');
    const res = await send(target, body, signed(body));
    expect([res.status, res.json.error]).toEqual([503, 'app_not_configured']);
  });
});
