/**
 * The Worker end to end inside workerd: its cron handler polls the simulated vendor on loopback
 * (Node side) into D1, its admin API makes a webhook subscription, its queue consumer delivers to a
 * loopback receiver, which checks each signature with standardwebhooks on Node; the archive reads
 * back through the Worker's own API.
 */
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import worker, { type WorkerEnv } from '../../src/entry/worker.ts';
import { QUEUE_ROUND_MAX_DELIVERIES } from '../../src/entry/worker-runtime.ts';
import { filesIncidentResolved, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { emptyD1 } from './d1-reset.ts';
import { countingD1 } from './harness/counting-d1.ts';
import { startWebhookReceiver } from './harness/webhook-receiver.ts';
import type {} from './provided-context.ts';

const simUrl = inject('simUrl');
const receiverUrl = inject('receiverUrl');
const testEnv = env as unknown as WorkerEnv & { ADMIN_TOKEN: string; PARKED: Queue<unknown>; EMPTY_DB: D1Database };
/** The free plan's subrequest limit per invocation. */
const SUBREQUESTS_PER_INVOCATION = 50;

type Verified = { verified: boolean; id: string; type?: string; incident?: string; error?: string };

async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(simUrl + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
const publish = (incidents: RawIncident[]) => control('PUT', '/_sim/incidents', incidents);

async function runScheduled(workerEnv: WorkerEnv = testEnv): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), workerEnv, ctx);
  await waitOnExecutionContext(ctx);
}

async function runQueue(workerEnv: WorkerEnv = testEnv) {
  const batch = createMessageBatch('statuswatch-deliveries', [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { kind: 'outbox_changed' } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch as never, workerEnv, ctx);
  return getQueueResult(batch, ctx);
}

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch(`http://statuswatch.test${path}`, {
    method,
    headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function subscribe(hookPath: string): Promise<string> {
  const created = await admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${receiverUrl}${hookPath}` });
  expect(created.status).toBe(201);
  return created.body.secret as string;
}

async function receivedAt(hookPath: string, secret: string): Promise<Verified[]> {
  const res = await fetch(`${receiverUrl}/_verify?path=${encodeURIComponent(hookPath)}`, { method: 'POST', body: JSON.stringify({ secret }) });
  return ((await res.json()) as { deliveries: Verified[] }).deliveries;
}

/** Waits until the receiver holds `count` requests on the path (the local queue consumer may still be sending). */
async function waitForDeliveries(hookPath: string, secret: string, count: number): Promise<Verified[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const got = await receivedAt(hookPath, secret);
    if (got.length >= count || Date.now() > deadline) return got;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the Worker', () => {
  beforeEach(async () => {
    await emptyD1(testEnv.DB as unknown as D1DatabaseLike);
    await publish([]);
    await control('DELETE', '/_sim/faults');
    await control('DELETE', '/_sim/requests');
  });

  it('keeps one queue invocation inside the subrequest limit and chains the rest of a fan-out', async () => {
    // 30 subscribers of one new incident: more than one invocation may send.
    const hooks = Array.from({ length: 30 }, (_, i) => `/hook/fanout-${i}`);
    await publish([rawIncident({ id: 1, title: 'Seeded' })]);
    const parkedEnv = { ...testEnv, DELIVERIES: testEnv.PARKED } as WorkerEnv;
    await runScheduled(parkedEnv); // backfill: nothing is news
    const secrets: string[] = [];
    for (const hook of hooks) secrets.push(await subscribe(hook));
    const { active } = filesIncidentResolved('<p>Uploads work again.</p>');
    await publish([rawIncident({ id: 1, title: 'Seeded' }), active]);
    await runScheduled(parkedEnv);

    const d1 = countingD1(testEnv.DB as unknown as D1DatabaseLike);
    let sends = 0;
    const countingQueue = {
      send(body: unknown, options?: QueueSendOptions) {
        sends++;
        return testEnv.PARKED.send(body, options);
      },
    };
    const result = await runQueue({ ...parkedEnv, DB: d1.db, DELIVERIES: countingQueue } as unknown as WorkerEnv);
    expect(result.retryBatch.retry).toBe(false);
    const firstRound = (await Promise.all(hooks.map((hook, i) => receivedAt(hook, secrets[i]!)))).flat();
    expect(firstRound).toHaveLength(QUEUE_ROUND_MAX_DELIVERIES);
    expect(firstRound.length + d1.calls() + sends).toBeLessThanOrEqual(SUBREQUESTS_PER_INVOCATION);
    // What is left is due now: the round asked for the next one.
    expect(sends).toBe(1);

    await runQueue(parkedEnv);
    const all = await Promise.all(hooks.map((hook, i) => receivedAt(hook, secrets[i]!)));
    expect(all.map((got) => got.length)).toEqual(hooks.map(() => 1));
    expect(all.flat().every((d) => d.verified && d.type === 'incident.created')).toBe(true);
  });

  it('sends at most six webhooks at once: a seventh fetch would wait in the runtime, its timeout running', async () => {
    // Each answer held back, so the round's sends overlap as they do with receivers far away.
    const slow = await startWebhookReceiver({ answerDelayMs: 600 });
    try {
      await publish([rawIncident({ id: 1, title: 'Seeded' })]);
      const parkedEnv = { ...testEnv, DELIVERIES: testEnv.PARKED } as WorkerEnv;
      await runScheduled(parkedEnv); // backfill: nothing is news
      for (let i = 0; i < 12; i++) {
        expect((await admin('POST', '/api/subscriptions', { channel: 'webhook', url: `${slow.url}/${i}` })).status).toBe(201);
      }
      await publish([rawIncident({ id: 1, title: 'Seeded' }), rawIncident({ id: 2, title: 'Calls drop after a minute' })]);
      await runScheduled(parkedEnv);
      expect((await runQueue(parkedEnv)).retryBatch.retry).toBe(false);
      const received = await slow.waitFor(12);
      expect(new Set(received.map((r) => r.path)).size).toBe(12);
      expect(Math.max(...received.map((r) => r.inFlight))).toBe(6);
    } finally {
      await slow.close();
    }
  });

  it('polls the vendor, delivers one signed webhook per event, and serves the archive', async () => {
    const hook = '/hook/end-to-end';
    const seeded = rawIncident({ id: 1, title: 'Seeded before we subscribed', status: 'resolved' });
    await publish([seeded]);
    await runScheduled();
    const secret = await subscribe(hook);

    const { active, resolved } = filesIncidentResolved('<p>Uploads work again.</p>');
    await publish([seeded, active]);
    await runScheduled();
    const mirror = await SELF.fetch('http://statuswatch.test/api/v2.0.0/current');
    expect(mirror.status).toBe(200);
    expect(((await mirror.json()) as { active_incidents: { id: number | string }[] }).active_incidents.map((i) => String(i.id))).toEqual([String(active.id)]);
    // The consumer of the local queue may already be sending; running it here too must not send twice.
    expect((await runQueue()).retryBatch.retry).toBe(false);
    expect(await waitForDeliveries(hook, secret, 1)).toHaveLength(1);

    await publish([seeded, resolved]);
    await runScheduled();
    await runQueue();
    const got = await waitForDeliveries(hook, secret, 3);
    // A moment more: a second sender, had there been one, would show here.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const settled = await receivedAt(hook, secret);
    expect(settled).toEqual(got);
    expect(settled.every((d) => d.verified)).toBe(true);
    expect(new Set(settled.map((d) => d.id)).size).toBe(3);
    expect(settled.map((d) => d.type).sort()).toEqual(['incident.created', 'incident.note_added', 'incident.status_changed']);
    expect(settled.every((d) => d.incident === String(active.id))).toBe(true);

    const list = await SELF.fetch('http://statuswatch.test/api/incidents');
    expect(list.status).toBe(200);
    const incidents = ((await list.json()) as { incidents: { id: string; status: string }[] }).incidents;
    expect(incidents.map((i) => [i.id, i.status]).sort()).toEqual([
      ['1', 'resolved'],
      [String(active.id), 'resolved'],
    ]);
  });

  it('never serves an archive older than D1 holds, though the answer was cached before a poll elsewhere', async () => {
    const ids = async () => {
      const res = await SELF.fetch('http://statuswatch.test/api/incidents');
      return ((await res.json()) as { incidents: { id: string }[] }).incidents.map((i) => i.id).sort();
    };
    await publish([rawIncident({ id: 21, title: 'First', status: 'resolved' })]);
    await runScheduled();
    expect(await ids()).toEqual(['21']);
    expect(await ids()).toEqual(['21']); // now served from this isolate's cache
    // The poll runs in another invocation with its own store: only D1 tells this isolate of it.
    await publish([rawIncident({ id: 21, title: 'First', status: 'resolved' }), rawIncident({ id: 22, title: 'Second' })]);
    await runScheduled();
    expect(await ids()).toEqual(['21', '22']);
  });

  it('polls once when two cron invocations overlap: the lease in D1', async () => {
    await publish([rawIncident({ id: 7, title: 'Overlap' })]);
    // The first poll holds the lease while its read of v2 current waits a second.
    await control('POST', '/_sim/faults', { target: 'v2/current', kind: 'slow', delayMs: 1000, times: 1 });
    await Promise.all([runScheduled(), runScheduled()]);
    const { requests } = (await control('GET', '/_sim/requests')) as { requests: { path: string }[] };
    expect(requests.filter((r) => r.path === '/api/v2.0.0/current')).toHaveLength(1);
    const runs = await testEnv.DB.prepare('SELECT COUNT(*) AS n FROM poll_runs').first<{ n: number }>();
    expect(runs?.n).toBe(1);
  });

  it("records a quiet tick's run, and gives its lease back, in the work the invocation keeps alive", async () => {
    await publish([rawIncident({ id: 8, title: 'Quiet' })]);
    await runScheduled();
    const ctx = createExecutionContext();
    const kept: Promise<unknown>[] = [];
    const waitUntil = ctx.waitUntil.bind(ctx);
    ctx.waitUntil = (work: Promise<unknown>) => {
      kept.push(work);
      waitUntil(work);
    };
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), testEnv, ctx);
    expect(kept.length).toBeGreaterThan(0);
    await waitOnExecutionContext(ctx);
    const runs = await testEnv.DB.prepare('SELECT outcome FROM poll_runs ORDER BY started_ms').all<{ outcome: string }>();
    expect(runs.results.map((r) => r.outcome)).toEqual(['ok', 'ok']);
    expect(await testEnv.DB.prepare("SELECT count(*) AS n FROM leases WHERE name = 'poll'").first<{ n: number }>()).toEqual({ n: 0 });
    await publish([rawIncident({ id: 8, title: 'Quiet' }), rawIncident({ id: 9, title: 'Next' })]);
    await runScheduled();
    expect((await testEnv.DB.prepare('SELECT count(*) AS n FROM incidents').first<{ n: number }>())?.n).toBe(2);
  });

  it('answers a request with the one error shape when a setting is invalid, and names it only in the log', async () => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('http://statuswatch.test/api/incidents') as never, { ...testEnv, STATUS_URL: 'ftp://nope' } as WorkerEnv, ctx);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ok: false, error: 'misconfigured', detail: expect.stringContaining('log') });
  });

  it('answers 503 storage_unavailable, not a bare 500, before the migrations are applied', async () => {
    const ctx = createExecutionContext();
    // A database with no tables: what a first deploy serves until `migrations apply --remote`.
    const res = await worker.fetch(new Request('http://statuswatch.test/api/incidents') as never, { ...testEnv, DB: testEnv.EMPTY_DB } as WorkerEnv, ctx);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ok: false, error: 'storage_unavailable', detail: expect.stringContaining('migrations') });
  });
});
