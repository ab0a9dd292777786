/** `statuswatch demo` as a new user meets it: what it prints works, mail arrives, a second demo or a busy port is refused cleanly. */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occupyPort, type BusyPort } from '../helpers/busy-port.ts';
import { CLI_RUN_TIMEOUT_MS, spawnCli, type CliResult } from '../helpers/cli.ts';
import { startDemo, type RunningDemo } from '../helpers/demo-process.ts';
import { tempDir } from '../helpers/temp-archive.ts';

/**
 * Runs a command that must end by itself; a hang is killed after `limitMs` and shows as code null.
 * The limit is the time a start may take on a loaded machine, so only a hang reaches it.
 */
async function runBounded(args: string[], cwd: string, limitMs = CLI_RUN_TIMEOUT_MS): Promise<CliResult> {
  const { child, done } = spawnCli(args, {}, { cwd });
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}

async function until<T>(read: () => Promise<T | undefined>, what: string, limitMs = 15_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A test that waits for runBounded. */
const BOUNDED = { timeout: CLI_RUN_TIMEOUT_MS + 10_000 };

const oneLine = (result: CliResult) => result.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'));

describe('a running demo', () => {
  const cwd = tempDir('statuswatch-demo-');
  let demo: RunningDemo;
  beforeAll(async () => {
    demo = await startDemo(cwd, 3600);
  }, 60_000);
  afterAll(async () => {
    const result = await demo.stop();
    expect(result.code).toBe(0);
    expect(existsSync(join(cwd, 'data', 'demo.lock'))).toBe(false);
  });

  it('prints pages a new user can open: dashboard, admin with its token, widget, feeds, mail and webhook catchers', async () => {
    const token = /token: (\S+)/.exec(demo.stdout)?.[1];
    expect(token).toMatch(/^demo-[0-9a-f]{24}$/);
    expect((await fetch(demo.url('Dashboard'))).status).toBe(200);
    expect((await fetch(demo.url('Admin'))).status).toBe(200);
    expect((await fetch(demo.url('Widget as an embeddable page'))).status).toBe(200);
    expect((await fetch(demo.url('Mail catcher'))).status).toBe(200);
    expect((await fetch(demo.url('Webhook catcher'))).status).toBe(200);
    expect(demo.stdout).toMatch(/<script src="http:\/\/127\.0\.0\.1:\d+\/widget\.js"/);
    const feeds = demo.stdout.split('\n').find((l) => l.trimStart().startsWith('Feeds'))!;
    for (const feed of ['feed.atom', 'feed.rss', 'feed.json']) {
      const url = new RegExp(`(http://\\S+/${feed.replace('.', '\\.')})`).exec(feeds)?.[1];
      expect((await fetch(url!)).status, feed).toBe(200);
    }
    // The admin token printed opens the admin API.
    const polls = await fetch(new URL('/api/admin/polls', demo.url('Dashboard')), { headers: { authorization: `Bearer ${token}` } });
    expect(polls.status).toBe(200);
  });

  it('prints the simulated team-chat channel page, and the Web API it belongs to answers like the vendor', async () => {
    const page = await fetch(demo.url('Team-chat channel (simulated)'));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>#status-updates</h1>');
    const api = /(http:\/\/\S+)\/api\/<method>/.exec(demo.stdout)?.[1];
    const answer = await fetch(`${api}/api/auth.test`, { method: 'POST' });
    expect(await answer.json()).toMatchObject({ ok: false, error: 'not_authed' });
    // The app is installed there and the channel subscribed: its messages appear on that page.
    const token = /token: (\S+)/.exec(demo.stdout)?.[1];
    const listed = await fetch(new URL('/api/subscriptions?channel=app', demo.url('Dashboard')), { headers: { authorization: `Bearer ${token}` } });
    const channelId = /\/channels\/(\w+)/.exec(demo.url('Team-chat channel (simulated)'))?.[1];
    const { subscriptions } = (await listed.json()) as { subscriptions: { status: string; conversation: string }[] };
    expect(subscriptions.map((s) => [s.status, s.conversation])).toEqual([['active', channelId]]);
  });

  it('serves a channel page whose own script shows a date token in the viewer\u2019s zone, as the demo runs it', async () => {
    const html = await (await fetch(demo.url('Team-chat channel (simulated)'))).text();
    const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(script).toBeDefined();
    // One <time> as the page renders it: the script, run as served (the demo may run the sources
    // through tsx, which rewrites functions), fills it in the zone it runs in, this process's.
    const attributes: Record<string, string> = { 'data-epoch': '1795758731', 'data-date-format': 'at {time}' };
    const time = {
      textContent: '',
      getAttribute: (name: string) => attributes[name] ?? null,
      setAttribute: (name: string, value: string) => (attributes[name] = value),
    };
    const document = { querySelectorAll: () => [time] };
    runInNewContext(script!, { document });
    expect(time.textContent).toBe(`at ${new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' }).format(new Date(1795758731_000))}`);
    expect(attributes['data-zone']).toBe('local');
  });

  it('adds three simulated status pages as sources, listed by /api/sources, whose stories reach /api/incidents?source= on the schedule', async () => {
    type Source = { id: string; kind: string; name: string; url: string };
    type Incident = { id: string; title: string; type: string; status: string; source: string };
    const api = async (path: string) => (await fetch(new URL(path, demo.url('Dashboard')))).json() as Promise<Record<string, unknown>>;
    const pages = ['Gitforge', 'Nimbus Cloud', 'Paystream'].map((name) => ({ name, summary: demo.url(`Status page ${name}`) }));
    const { sources } = (await api(new URL(demo.url('Sources')).pathname)) as { sources: Source[] };
    // Named from each page's own page.name, at the address the demo printed for it.
    expect(sources.filter((s) => s.kind === 'statuspage').map((s) => [s.name, `${s.url}/api/v2/summary.json`])).toEqual(pages.map((p) => [p.name, p.summary]));
    const idOf = (name: string) => sources.find((s) => s.name === name)!.id;
    const incidentsOf = async (name: string, query = '') => ((await api(`/api/incidents?source=${idOf(name)}${query}`)) as { incidents: Incident[] }).incidents;

    // Polled as the demo added them: each page's past is in the archive already, under its source.
    expect((await incidentsOf('Gitforge')).map((i) => [i.id, i.title, i.status, i.source])).toEqual([
      [`${idOf('Gitforge')}:gfinc0000000`, 'Delays in webhook delivery', 'resolved', idOf('Gitforge')],
    ]);
    expect((await incidentsOf('Nimbus Cloud')).map((i) => i.title)).toEqual(['Object Storage errors in NYC3']);
    expect((await incidentsOf('Paystream')).map((i) => i.title)).toEqual(['Payout reports arrive late']);

    // Each story's first step, as the demo's pacing would take it; the schedule (every 10 s) polls it.
    for (const page of pages) {
      const control = page.summary.replace('/api/v2/summary.json', '/_sim/advance');
      expect((await fetch(control, { method: 'POST' })).status).toBe(200);
    }
    const opened = await until(
      async () => {
        const open = await incidentsOf('Gitforge', '&status=active');
        return open.length > 0 ? open : undefined;
      },
      "Gitforge's incident on the schedule's next poll",
      30_000,
    );
    expect(opened.map((i) => [i.title, i.type])).toEqual([['Incident with CI runners', 'incident']]);
    const maintenance = await until(
      async () => (await incidentsOf('Nimbus Cloud')).find((i) => i.type === 'maintenance'),
      "Nimbus Cloud's maintenance on the schedule's next poll",
      30_000,
    );
    expect(maintenance.title).toBe('Network maintenance in FRA1');
    // Paystream only flipped a component: no incident was made of it.
    expect((await incidentsOf('Paystream')).map((i) => i.title)).toEqual(['Payout reports arrive late']);
  }, 60_000);

  it('prints the simulated SCIM directory with a token that opens it, seeded with people and groups', async () => {
    const line = demo.stdout.split('\n').find((l) => l.trimStart().startsWith('Simulated SCIM directory'))!;
    const scimToken = /token: (\S+)/.exec(line)?.[1];
    const users = await fetch(demo.url('Simulated SCIM directory'), { headers: { authorization: `Bearer ${scimToken}` } });
    expect(users.status).toBe(200);
    expect(((await users.json()) as { totalResults: number }).totalResults).toBe(40);
    expect((await fetch(demo.url('Simulated SCIM directory'))).status).toBe(401);
  });

  it('prints a search that finds something within seconds of starting', async () => {
    const found = await until(async () => {
      const body = (await (await fetch(demo.url('Archive API, with search'))).json()) as { incidents: { title: string }[] };
      return body.incidents.length > 0 ? body.incidents : undefined;
    }, 'the printed search to find an incident');
    expect(found.map((i) => i.title).join('\n')).toMatch(/huddles/i);
    const page = await (await fetch(demo.url('Search'))).text();
    expect(page).toContain('Huddles failing to connect for some users');
  });

  it('delivers the /subscribe confirmation to its mail catcher, which lists it', async () => {
    const subscribe = new URL(demo.url('Subscribe by email'));
    const answer = await fetch(subscribe, {
      method: 'POST',
      headers: { origin: subscribe.origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'new.user@example.com', timezone: 'UTC' }),
      redirect: 'manual',
    });
    expect(answer.status, await answer.text()).toBeLessThan(400);
    const page = await until(async () => {
      const html = await (await fetch(demo.url('Mail catcher'))).text();
      return html.includes('new.user@example.com') ? html : undefined;
    }, 'the confirmation mail on the catcher page');
    expect(page).toMatch(/<a href="http:\/\/[^"]+\/subscribe\/confirm\?token=[^"]+"/);
    expect(page).toContain('status@demo.localhost');
  });

  it('prints a webhook catcher, subscribed to the demo\u2019s webhooks, that shows a test delivery with its signature checked', async () => {
    const token = /token: (\S+)/.exec(demo.stdout)?.[1];
    const api = (path: string, method = 'GET') => fetch(new URL(path, demo.url('Dashboard')), { method, headers: { authorization: `Bearer ${token}` } });
    const { subscriptions } = (await (await api('/api/subscriptions?channel=webhook')).json()) as {
      subscriptions: { id: string; url: string; status: string }[];
    };
    const catcherPage = demo.url('Webhook catcher');
    expect(subscriptions.map((s) => [s.status, new URL(s.url).origin])).toEqual([['active', new URL(catcherPage).origin]]);
    const test = (await (await api(`/api/subscriptions/${subscriptions[0]!.id}/test`, 'POST')).json()) as { ok: boolean };
    expect(test.ok).toBe(true);
    const page = await until(async () => {
      const html = await (await fetch(catcherPage)).text();
      return html.includes('signature valid') ? html : undefined;
    }, 'the test delivery on the webhook catcher page');
    expect(page).not.toContain('signature invalid');
    expect(page).toContain('<code>standardwebhooks</code> library');
  });

  it('prints the simulated PagerDuty and Opsgenie, subscribed by the demo, whose page shows a test alert and no key', async () => {
    const token = /token: (\S+)/.exec(demo.stdout)?.[1];
    const api = (path: string, method = 'GET') => fetch(new URL(path, demo.url('Dashboard')), { method, headers: { authorization: `Bearer ${token}` } });
    const page = demo.url('PagerDuty and Opsgenie');
    for (const channel of ['pagerduty', 'opsgenie']) {
      const { subscriptions } = (await (await api(`/api/subscriptions?channel=${channel}`)).json()) as { subscriptions: { id: string; status: string }[] };
      expect(subscriptions.map((s) => s.status)).toEqual(['active']);
      const test = (await (await api(`/api/subscriptions/${subscriptions[0]!.id}/test`, 'POST')).json()) as { ok: boolean };
      expect(test.ok).toBe(true);
    }
    const html = await (await fetch(page)).text();
    expect(html).toContain('statuswatch/127.0.0.1');
    expect(html).toMatch(/<td>resolved<\/td>/);
    expect(html).toMatch(/<td>closed<\/td>/);
    expect(html).not.toMatch(/"routing_key": "[^…]/);
  });

  it('prints the simulated Teams and Discord pages, each subscribed, each showing a test send', async () => {
    const token = /token: (\S+)/.exec(demo.stdout)?.[1];
    const api = (path: string, method = 'GET') => fetch(new URL(path, demo.url('Dashboard')), { method, headers: { authorization: `Bearer ${token}` } });
    for (const [label, channel, shows] of [
      ['Teams', 'teams', 'Status:'],
      ['Discord', 'discord', 'edited 0 times'],
    ] as const) {
      const { subscriptions } = (await (await api(`/api/subscriptions?channel=${channel}`)).json()) as { subscriptions: { id: string; url_host: string }[] };
      expect(subscriptions.map((s) => s.url_host)).toEqual([new URL(demo.url(label)).host]);
      expect(((await (await api(`/api/subscriptions/${subscriptions[0]!.id}/test`, 'POST')).json()) as { ok: boolean }).ok).toBe(true);
      const page = await (await fetch(demo.url(label))).text();
      expect(page, label).toContain(shows);
    }
  });

  it('a second demo on the same folder refuses in one line, exits, and leaves the running one and its database alone', BOUNDED, async () => {
    const database = join(cwd, 'data', 'demo.db');
    const before = statSync(database);
    const second = await runBounded(['demo', '--port', '0', '--host', '127.0.0.1'], cwd);
    expect(second.code, second.stderr).toBe(2);
    expect(oneLine(second)).toHaveLength(1);
    expect(oneLine(second)[0]).toMatch(/^statuswatch: another demo \(pid \d+\) is running on \.\/data\/demo\.db.*Fix: /);
    expect(second.stdout).toBe('');
    const after = statSync(database);
    expect([after.ino, after.birthtimeMs]).toEqual([before.ino, before.birthtimeMs]);
    const body = (await (await fetch(demo.url('Archive API, with search'))).json()) as { ok: boolean; incidents: unknown[] };
    expect(body.ok).toBe(true);
    expect(body.incidents.length).toBeGreaterThan(0);
  });
});

describe('demo refusals', () => {
  let busy: BusyPort;
  let port: number;
  beforeAll(async () => {
    busy = await occupyPort();
    port = busy.port;
  });
  afterAll(() => busy.close());

  it('a busy port: one line naming PORT, exit 2, and the process ends (it used to hang)', BOUNDED, async () => {
    const cwd = tempDir('statuswatch-demo-');
    const result = await runBounded(['demo', '--port', String(port), '--host', '127.0.0.1'], cwd);
    expect(result.code, result.stderr).toBe(2);
    expect(oneLine(result)).toEqual([expect.stringMatching(new RegExp(`^statuswatch: PORT "${port}": another process is already listening.*Fix: `))]);
    expect(existsSync(join(cwd, 'data', 'demo.lock'))).toBe(false);
  });

  it('--step-seconds abc is refused before anything starts', BOUNDED, async () => {
    const cwd = tempDir('statuswatch-demo-');
    const result = await runBounded(['demo', '--port', '0', '--step-seconds', 'abc'], cwd);
    expect(result.code).toBe(2);
    expect(oneLine(result)).toEqual([expect.stringMatching(/^statuswatch: --step-seconds "abc": not a number of seconds\. Fix: /)]);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});
