/**
 * The workspace app's messages end to end: the real service (HTTP, SQLite file, poller,
 * deliverer) polls the simulated vendor and posts through the simulated Web API, both over
 * loopback. One incident from creation to resolution leaves one root message per conversation,
 * edited to the final state, with each change once in its thread, also when answers are lost
 * after the vendor acted; a 429 holds only its conversation; channel errors pause; a broken
 * installation holds its deliveries until it is re-installed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appStory as story } from '../fixtures/app-story.ts';
import type { RawIncident } from '../fixtures/vendor-builders.ts';
import { installApp, readable, startAppWorld, subscribeApp, type AppWorld, type ChannelView } from '../helpers/app-channel.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { logLines } from '../helpers/log-lines.ts';

const MINUTE_MS = 60_000;

/** The expectation from the story alone: one root by the bot showing the final state, each change once in its thread. */
function expectFinalChannel(view: ChannelView, replies: RegExp[]): void {
  expect(view.roots).toHaveLength(1);
  const root = view.roots[0]!;
  expect(root.botId).not.toBeNull();
  const shown = readable(root);
  expect(shown).toContain('Resolved');
  expect(shown).toContain('Messages are delayed for some workspaces &lt;!channel&gt;');
  expect(shown).toContain('on time again');
  expect(shown).not.toContain('<!channel>');
  expect(root.editCount).toBeGreaterThanOrEqual(replies.length);
  expect(root.replies).toHaveLength(replies.length);
  for (const [i, pattern] of replies.entries()) expect(readable(root.replies[i]!)).toMatch(pattern);
}

describe('app messages', () => {
  let vendor: TestVendor;
  let world: AppWorld;
  let service: TestService;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  let installation: string;

  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
  });
  afterAll(async () => {
    await vendor.close();
  });
  beforeEach(async () => {
    offsetMs = 0;
    await vendor.setIncidents([]);
    world = await startAppWorld(['status', 'ops', 'quiet']);
    service = await startTestService(vendor.url, { clock, env: { ...world.env, PUBLIC_URL: 'https://status.example.test' } });
    expect((await service.poll()).outcome).toBe('ok'); // seeds the archive: nothing is news yet
    installation = await installApp(service.admin, world);
  });
  afterEach(async () => {
    await vendor.clearFaults();
    await service.close();
    await world.close();
  });

  async function step(incident: RawIncident): Promise<void> {
    await vendor.setIncidents([incident]);
    expect((await service.poll()).outcome).toBe('ok');
    await service.deliverNow();
  }

  /** Moves our clock past every retry and hold, and sends what is due, until nothing is pending. */
  async function drain(): Promise<void> {
    for (let round = 0; round < 10; round++) {
      offsetMs += 10 * MINUTE_MS;
      await service.deliverNow();
      const pending = await service.admin('GET', '/api/deliveries?state=pending');
      if (pending.body.deliveries.length === 0) return;
    }
    const pending = (await service.admin('GET', '/api/deliveries?state=pending')).body.deliveries as { id: number }[];
    const detail = await Promise.all(pending.map(async (d) => (await service.admin('GET', `/api/deliveries/${d.id}`)).body.delivery));
    throw new Error(`deliveries still pending after 10 rounds: ${JSON.stringify(detail)}`);
  }

  async function fault(spec: Record<string, unknown>): Promise<void> {
    expect((await world.control('POST', '/faults', spec)).status).toBe(201);
  }

  /**
   * The channel's history as conversations.history gives it now, edited by `edit` and then sent as
   * the vendor's next answer to it: how a retry that looks for our root sees a malformed message.
   */
  async function nextHistoryAnswer(channel: string, edit: (messages: Record<string, unknown>[]) => void): Promise<void> {
    const res = await fetch(`${world.url}/api/conversations.history`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${await world.newToken()}` },
      body: new URLSearchParams({ channel, limit: '200', include_all_metadata: 'true' }).toString(),
    });
    const history = await res.json();
    expect(history.messages).toHaveLength(1); // our root, its answer lost
    edit(history.messages);
    await fault({ method: 'conversations.history', kind: 'body', body: JSON.stringify(history), times: 1 });
  }

  it('keeps one root per incident and conversation, edited to the final state, with each change once in its thread', async () => {
    const { steps, replies } = story();
    const subscriptions = [
      await subscribeApp(service.admin, installation, world.channels.status!),
      await subscribeApp(service.admin, installation, world.channels.ops!),
    ];
    for (const incident of steps) await step(incident);
    await drain();
    for (const name of ['status', 'ops']) expectFinalChannel(await world.read(world.channels[name]!), replies);
    expect((await world.read(world.channels.quiet!)).roots).toHaveLength(0);
    for (const id of subscriptions) expect((await service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.status).toBe('active');
  });

  it('posts no second root and no second reply when the vendor acted but its answer was lost', async () => {
    const { steps, replies } = story();
    await subscribeApp(service.admin, installation, world.channels.status!);
    await subscribeApp(service.admin, installation, world.channels.ops!);
    // The root's answer is lost: the post happened, we never learn its ts (a crash between post and record).
    await fault({ method: 'chat.postMessage', kind: 'status', status: 502, after: true, times: 1 });
    await step(steps[0]!);
    await drain();
    // A reply's answer is lost; then an edit's.
    await fault({ method: 'chat.postMessage', kind: 'status', status: 500, after: true, times: 1 });
    await step(steps[1]!);
    await drain();
    await fault({ method: 'chat.update', kind: 'status', status: 500, after: true, times: 1 });
    await step(steps[2]!);
    await drain();
    await step(steps[3]!);
    await drain();
    for (const name of ['status', 'ops']) expectFinalChannel(await world.read(world.channels[name]!), replies);
    // The lost answers were looked for, not guessed: history for the root, the thread for the reply.
    const calls = (await world.control('GET', '/calls')).body.calls as { method: string }[];
    expect(calls.filter((c) => c.method === 'conversations.history').length).toBeGreaterThanOrEqual(1);
    expect(calls.filter((c) => c.method === 'conversations.replies').length).toBeGreaterThanOrEqual(1);
  });

  it('finds its root past a message the vendor sent malformed in the history, and logs the one it skipped', async () => {
    const { steps, replies } = story();
    const channel = world.channels.status!;
    await subscribeApp(service.admin, installation, channel);
    // The root's answer is lost: its retry looks in the history before it posts.
    await fault({ method: 'chat.postMessage', kind: 'status', status: 502, after: true, times: 1 });
    await step(steps[0]!);
    // Beside our root, someone's message the vendor sends malformed (its metadata's event_type a number).
    await nextHistoryAnswer(channel, (messages) =>
      messages.unshift({ type: 'message', ts: '1700000000.000100', user: 'U0SOMEONE', text: 'hello', metadata: { event_type: 7, event_payload: {} } }),
    );
    await drain();
    for (const incident of steps.slice(1)) await step(incident);
    await drain();
    expectFinalChannel(await world.read(channel), replies);
    const logged = logLines(service.logs, 'skipped malformed records');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'warn',
        list: 'conversations.history',
        skipped: 1,
        records: [{ id: '1700000000.000100', reason: 'metadata.event_type: Invalid input: expected string, received number' }],
      }),
    ]);
  });

  it('finds its root after a lost answer though the vendor sends that root with fields it does not read malformed, and posts no second root', async () => {
    const { steps, replies } = story();
    const channel = world.channels.status!;
    await subscribeApp(service.admin, installation, channel);
    await fault({ method: 'chat.postMessage', kind: 'status', status: 502, after: true, times: 1 });
    await step(steps[0]!);
    // Our root, as the vendor sends it back to the retry: its thread_ts and bot_id numbers, its ts and metadata as posted.
    await nextHistoryAnswer(channel, (messages) => Object.assign(messages[0]!, { thread_ts: 7, bot_id: 42 }));
    await drain();
    for (const incident of steps.slice(1)) await step(incident);
    await drain();
    expectFinalChannel(await world.read(channel), replies);
    expect(logLines(service.logs, 'skipped malformed records')).toEqual([]);
  });

  it('starts a new root when someone deleted the incident’s message, once, even when that post’s answer is lost', async () => {
    const { steps } = story();
    await subscribeApp(service.admin, installation, world.channels.status!);
    const channel = world.channels.status!;
    await step(steps[0]!);
    await step(steps[1]!);
    await drain();
    const [deleted] = (await world.read(channel)).roots;
    expect(deleted!.replies).toHaveLength(1);
    expect((await world.control('DELETE', `/channels/${channel}/messages/${deleted!.ts}`)).status).toBe(200);

    // The title changes; the new root's answer is lost, so its retry must look before it posts.
    // The vendor's clock is ours (its ts bound the history read): drain moved ours by minutes.
    expect((await world.control('PUT', '/clock', { nowMs: clock.now() })).status).toBe(200);
    await fault({ method: 'chat.postMessage', kind: 'status', status: 502, after: true, times: 1 });
    await step(steps[2]!);
    await drain();
    const restarted = (await world.read(channel)).roots;
    expect(restarted).toHaveLength(1);
    expect(restarted[0]!.ts).not.toBe(deleted!.ts);
    // It shows the incident as it stands: the new title, and the note the deleted root showed.
    expect(readable(restarted[0]!)).toContain('Messages are delayed for some workspaces &lt;!channel&gt;');
    expect(readable(restarted[0]!)).toContain('Some messages arrive minutes late');
    expect(restarted[0]!.replies).toHaveLength(0);

    await step(steps[3]!);
    await drain();
    const [final] = (await world.read(channel)).roots;
    expect(final!.ts).toBe(restarted[0]!.ts);
    expect(readable(final!)).toContain('Resolved');
    expect(final!.replies.map(readable)).toEqual([expect.stringMatching(/Resolved[\s\S]*on time again/)]);
    const dead = await service.admin('GET', '/api/deliveries?state=dead');
    expect(dead.status).toBe(200);
    expect(dead.body.deliveries).toEqual([]);
  });

  it('posts each monitor message once when the vendor posted it but its answer was lost', async () => {
    await subscribeApp(service.admin, installation, world.channels.status!);
    // The vendor's clock is ours (its ts bound the history read): the test moves ours by minutes.
    // Synced before each poll, since the poll's own signal may start a delivery round at once.
    const syncVendorClock = async () => expect((await world.control('PUT', '/clock', { nowMs: clock.now() })).status).toBe(200);
    // The feed goes dark past the staleness limit: one monitor.blind, its post's answer lost.
    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    await fault({ method: 'chat.postMessage', kind: 'status', status: 502, after: true, times: 1 });
    for (const minutes of [4, 2]) {
      offsetMs += minutes * MINUTE_MS;
      await syncVendorClock();
      await service.poll();
    }
    await service.deliverNow();
    await drain();
    // It comes back: one monitor.recovered, its answer lost too.
    await vendor.clearFaults();
    await fault({ method: 'chat.postMessage', kind: 'status', status: 500, after: true, times: 1 });
    await syncVendorClock();
    expect((await service.poll()).outcome).toBe('ok');
    await service.deliverNow();
    await drain();
    const posted = (await world.read(world.channels.status!)).roots.map(readable);
    expect(posted).toHaveLength(2);
    expect(posted[0]).toMatch(/cannot read/i);
    expect(posted[1]).toMatch(/again/i);
    const calls = (await world.control('GET', '/calls')).body.calls as { method: string }[];
    expect(calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(2);
    expect(calls.filter((c) => c.method === 'conversations.history').length).toBeGreaterThanOrEqual(2);
  });

  it('refreshes once on token_expired and sends in the same attempt', async () => {
    const { steps } = story();
    const id = await subscribeApp(service.admin, installation, world.channels.status!);
    await fault({ method: 'chat.postMessage', kind: 'error', error: 'token_expired', times: 1 });
    await step(steps[0]!);
    expect((await world.read(world.channels.status!)).roots).toHaveLength(1);
    const deliveries = (await service.admin('GET', `/api/deliveries?subscription=${id}`)).body.deliveries;
    expect(deliveries.map((d: { state: string; attempts: number }) => [d.state, d.attempts])).toEqual([['done', 1]]);
  });

  it('replaces a token the vendor revoked on its own (rotation keeps the installation) and sends in the same attempt', async () => {
    const { steps } = story();
    const id = await subscribeApp(service.admin, installation, world.channels.status!);
    const refreshesBefore = (await world.control('GET', `/workspaces/${world.teamId}`)).body.stats.refreshes;
    await fault({ method: 'chat.postMessage', kind: 'error', error: 'token_revoked', times: 1 });
    await step(steps[0]!);
    expect((await world.read(world.channels.status!)).roots).toHaveLength(1);
    const deliveries = (await service.admin('GET', `/api/deliveries?subscription=${id}`)).body.deliveries;
    expect(deliveries.map((d: { state: string; attempts: number }) => [d.state, d.attempts])).toEqual([['done', 1]]);
    expect((await world.control('GET', `/workspaces/${world.teamId}`)).body.stats.refreshes).toBe(refreshesBefore + 1);
    const installations = (await service.admin('GET', '/api/app/installations')).body.installations;
    expect(installations.map((i: { id: string; state: string }) => [i.id, i.state])).toEqual([[installation, 'active']]);
  });

  it('holds only the rate-limited conversation, as long as Retry-After asks, and logs the 429', async () => {
    const { steps } = story();
    const status = await subscribeApp(service.admin, installation, world.channels.status!);
    await subscribeApp(service.admin, installation, world.channels.ops!);
    await fault({ method: 'chat.postMessage', kind: 'ratelimited', retryAfterSeconds: 120, times: 1 });
    await step(steps[0]!);
    const views = [await world.read(world.channels.status!), await world.read(world.channels.ops!)];
    const heldIndex = views.findIndex((v) => v.roots.length === 0);
    expect(heldIndex).toBeGreaterThanOrEqual(0);
    expect(views[1 - heldIndex]!.roots).toHaveLength(1);
    const heldChannel = heldIndex === 0 ? world.channels.status! : world.channels.ops!;
    const otherChannel = heldIndex === 0 ? world.channels.ops! : world.channels.status!;

    // A minute on, the next change: the other conversation gets its reply, the held one still waits
    // (its deliveries make no call at all: one 429 is all the vendor saw).
    offsetMs += MINUTE_MS;
    await step(steps[1]!);
    expect((await world.read(otherChannel)).roots[0]!.replies).toHaveLength(1);
    expect((await world.read(heldChannel)).roots).toHaveLength(0);
    const calls = (await world.control('GET', '/calls')).body.calls as { method: string; status: number }[];
    expect(calls.filter((c) => c.status === 429)).toHaveLength(1);
    const pending = (await service.admin('GET', '/api/deliveries?state=pending')).body.deliveries as { id: number; attempts: number }[];
    expect(pending).toHaveLength(2);
    expect(pending.every((d) => d.attempts === 0)).toBe(true);
    const logged = await Promise.all(pending.map(async (d) => (await service.admin('GET', `/api/deliveries/${d.id}`)).body.delivery.attempt_log));
    expect(logged.flat().map((a: { status: number; error: string }) => [a.status, a.error])).toEqual([[429, 'chat.postMessage: ratelimited']]);

    // Past Retry-After: both of its deliveries go out, in order.
    offsetMs += 2 * MINUTE_MS;
    await service.deliverNow();
    const caughtUp = await world.read(heldChannel);
    expect(caughtUp.roots).toHaveLength(1);
    expect(caughtUp.roots[0]!.replies).toHaveLength(1);
    expect((await service.admin('GET', `/api/subscriptions/${status}`)).body.subscription.status).toBe('active');
  });

  it('waits at most a day however long a 429’s Retry-After asks', async () => {
    const { steps } = story();
    await subscribeApp(service.admin, installation, world.channels.status!);
    await fault({ method: 'chat.postMessage', kind: 'ratelimited', retryAfterSeconds: 30 * 24 * 3600, times: 1 });
    const before = clock.now();
    await step(steps[0]!);
    const [held] = (await service.admin('GET', '/api/deliveries?state=pending')).body.deliveries as { next_attempt_at: string }[];
    const waitMs = Date.parse(held!.next_attempt_at) - before;
    expect(waitMs).toBeGreaterThan(23 * 60 * MINUTE_MS);
    expect(waitMs).toBeLessThanOrEqual(24 * 60 * MINUTE_MS + 60_000);
  });

  it.each([
    ['is_archived', { isArchived: true }],
    ['not_in_channel', { botIsMember: false }],
  ])('pauses the subscription with a clear reason on %s', async (code, patch) => {
    const { steps } = story();
    const id = await subscribeApp(service.admin, installation, world.channels.status!);
    await step(steps[0]!);
    expect((await world.control('PATCH', `/channels/${world.channels.status}`, patch)).status).toBe(200);
    await step(steps[1]!);
    const subscription = (await service.admin('GET', `/api/subscriptions/${id}`)).body.subscription;
    expect(subscription.status).toBe('paused');
    expect(subscription.paused_reason).toContain(`(${code})`);
    const [latest] = (await service.admin('GET', `/api/deliveries?subscription=${id}`)).body.deliveries;
    const detail = (await service.admin('GET', `/api/deliveries/${latest.id}`)).body.delivery;
    expect(detail.attempt_log.map((a: { error: string }) => a.error)).toEqual([`chat.update: ${code}`]);
  });

  it('holds a broken installation’s deliveries, never killing them, and sends them once it is re-installed', async () => {
    const { steps } = story();
    const id = await subscribeApp(service.admin, installation, world.channels.status!);
    await step(steps[0]!);
    // Refused again with a freshly refreshed token: not one token but the installation's were revoked.
    await fault({ method: 'chat.update', kind: 'error', error: 'token_revoked', times: 2 });
    await step(steps[1]!);
    const listed = (await service.admin('GET', '/api/app/installations')).body.installations;
    expect(listed.map((i: { state: string; reason: string }) => [i.state, i.reason])).toEqual([['broken', 'token_revoked']]);
    // Hours go by: the delivery waits, uncounted, and the vendor is not called.
    const callsBefore = ((await world.control('GET', '/calls')).body.calls as unknown[]).length;
    for (let hour = 0; hour < 30; hour++) {
      offsetMs += 60 * MINUTE_MS;
      await service.deliverNow();
    }
    const [held] = (await service.admin('GET', `/api/deliveries?subscription=${id}`)).body.deliveries;
    expect([held.state, held.attempts]).toEqual(['pending', 0]);
    expect(held.last_error).toContain('waiting for a re-install');
    expect(((await world.control('GET', '/calls')).body.calls as unknown[]).length).toBe(callsBefore);
    expect((await service.admin('GET', `/api/subscriptions/${id}`)).body.subscription.status).toBe('active');

    // The admin re-installs (same team: the same installation, active again): the delivery goes out.
    expect(await installApp(service.admin, world, await world.newToken())).toBe(installation);
    await drain();
    const view = await world.read(world.channels.status!);
    expect(view.roots).toHaveLength(1);
    expect(view.roots[0]!.replies).toHaveLength(1);
  });

  describe('creating an app subscription', () => {
    it('checks the installation and that the app can post to the conversation', async () => {
      const post = (body: object) => service.admin('POST', '/api/subscriptions', { channel: 'app', ...body });
      const ok = await post({ installation, conversation: world.channels.status! });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect(ok.body.subscription).toMatchObject({ channel: 'app', installation, conversation: world.channels.status, status: 'active' });

      expect((await post({ installation, conversation: world.channels.status! })).body.error).toBe('already_subscribed');
      expect((await post({ installation: 'nope', conversation: world.channels.ops! })).status).toBe(404);
      const missing = await post({ installation, conversation: 'C0NOSUCHONE' });
      expect([missing.status, missing.body.error]).toEqual([400, 'invalid_request']);
      expect(missing.body.detail).toContain('C0NOSUCHONE');
      expect((await world.control('PATCH', `/channels/${world.channels.ops}`, { botIsMember: false })).status).toBe(200);
      const outside = await post({ installation, conversation: world.channels.ops! });
      expect(outside.status).toBe(400);
      expect(outside.body.detail).toContain('not a member of #ops');
      expect((await post({ installation, conversation: 'C1/../x' })).status).toBe(400);
      expect((await post({ installation })).body.detail).toContain('an app subscription needs conversation');
      expect((await post({ installation, conversation: world.channels.quiet!, url: 'https://x.example' })).status).toBe(400);
    });

    it('makes one subscription of a conversation that several admins subscribe at once', async () => {
      const post = () => service.admin('POST', '/api/subscriptions', { channel: 'app', installation, conversation: world.channels.ops! });
      const answers = await Promise.all(Array.from({ length: 5 }, post));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
      expect(answers.filter((a) => a.status === 409).map((a) => a.body.error)).toEqual(Array(4).fill('already_subscribed'));
      const listed = (await service.admin('GET', '/api/subscriptions?channel=app')).body.subscriptions as { conversation: string }[];
      expect(listed.filter((s) => s.conversation === world.channels.ops)).toHaveLength(1);
    });

    it('lets PATCH change the filters but not where it posts', async () => {
      const id = await subscribeApp(service.admin, installation, world.channels.status!);
      const patched = await service.admin('PATCH', `/api/subscriptions/${id}`, { filters: { services: ['Messaging'] } });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.subscription.filters.services).toEqual(['Messaging']);
      expect(patched.body.subscription.conversation).toBe(world.channels.status);
      const moved = await service.admin('PATCH', `/api/subscriptions/${id}`, { url: 'https://elsewhere.example' });
      expect(moved.status).toBe(400);
      expect(moved.body.detail).toContain('cannot be changed');
    });

    it('refuses when the installation is broken', async () => {
      await fault({ method: 'conversations.list', kind: 'error', error: 'invalid_auth', times: 1 });
      const res = await service.admin('POST', '/api/subscriptions', { channel: 'app', installation, conversation: world.channels.status! });
      expect([res.status, res.body.error]).toEqual([409, 'installation_unavailable']);
    });
  });
});
