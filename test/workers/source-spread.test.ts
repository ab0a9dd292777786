/**
 * Polls of sources spread over the sources queue, inside workerd: the cron tick asks for a poll of
 * every source, one message each, and the queue's invocations poll them, a batch side by side,
 * each poll under its source's lease in D1. The pages are simulated on the Node side and reached
 * over loopback HTTP.
 */
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import type { SourcePollRequest } from '../../src/core/ports.ts';
import worker, { type WorkerEnv } from '../../src/entry/worker.ts';
import wranglerToml from '../../wrangler.toml?raw';
import { emptyD1 } from './d1-reset.ts';
import { countingD1 } from './harness/counting-d1.ts';
import { startTestStatuspage, type TestStatuspage } from './harness/statuspage-pages.ts';
import type {} from './provided-context.ts';

const testEnv = env as unknown as WorkerEnv & { ADMIN_TOKEN: string; PARKED: Queue<unknown>; EMPTY_DB: D1Database; POLL_TIMEOUT_MS: string };
const DB = testEnv.DB as unknown as D1DatabaseLike;
/**
 * Subrequests (fetches and D1 calls) of one source's poll, as docs/workers.md states them: its
 * first read, and a minute in which nothing changed.
 */
const SUBREQUESTS_PER_FIRST_POLL = 12;
const SUBREQUESTS_PER_QUIET_POLL = 3;
/** The Paid plan's subrequests per invocation (developers.cloudflare.com/workers/platform/limits). */
const PAID_SUBREQUESTS_PER_INVOCATION = 10_000;
const PAGES = 20;

/** The sources queue's consumer settings, as wrangler.toml declares them. */
function sourcesConsumer(): { maxBatchSize: number; maxRetries: number } {
  const table = wranglerToml.split('[[queues.consumers]]').find((t) => /queue = "statuswatch-sources"/.test(t.split('\n[')[0]!));
  const setting = (name: string) => Number(table?.match(new RegExp(`^${name} = (\\d+)`, 'm'))?.[1]);
  return { maxBatchSize: setting('max_batch_size'), maxRetries: setting('max_retries') };
}

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch(`http://statuswatch.test${path}`, {
    method,
    headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function runScheduled(workerEnv: WorkerEnv): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), workerEnv, ctx);
  await waitOnExecutionContext(ctx);
}

async function runSourcesQueue(requests: SourcePollRequest[], workerEnv: WorkerEnv = testEnv) {
  const batch = createMessageBatch(
    'statuswatch-sources',
    requests.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as never, workerEnv, ctx);
  return { batch, result: await getQueueResult(batch, ctx) };
}

/** A queue that keeps what is sent to it: the requests of one tick, to hand to the consumer by hand. */
function keepingQueue() {
  const kept: SourcePollRequest[] = [];
  let calls = 0;
  return {
    kept,
    calls: () => calls,
    queue: {
      async sendBatch(messages: Iterable<MessageSendRequest<SourcePollRequest>>) {
        calls++;
        for (const m of messages) kept.push(m.body);
      },
      async send(body: SourcePollRequest) {
        calls++;
        kept.push(body);
      },
    } as unknown as Queue<SourcePollRequest>,
  };
}

type SourceRow = { id: string; last_success_ms: number | null; last_failure_ms: number | null; last_error: string | null };
async function sourceRows(): Promise<Map<string, SourceRow>> {
  const { results } = await testEnv.DB.prepare('SELECT id, last_success_ms, last_failure_ms, last_error FROM sources').all<SourceRow>();
  return new Map(results.map((r) => [r.id, r]));
}

const pageReads = async (page: TestStatuspage) => (await page.requests()).filter((r) => r.path.startsWith('/api/v2/')).length;

describe('sources spread over the sources queue', () => {
  const pages: TestStatuspage[] = [];
  let ids: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < PAGES; i++) pages.push(await startTestStatuspage({ name: `Vendor ${i}` }));
  });
  afterAll(async () => {
    await Promise.all(pages.map((p) => p.close()));
  });
  beforeEach(async () => {
    await emptyD1(DB);
    await Promise.all(pages.map((p) => p.clearFaults()));
    ids = [];
    for (const page of pages) {
      const added = await admin('POST', '/api/admin/sources', { kind: 'statuspage', url: page.url });
      expect(added.status).toBe(201);
      ids.push((added.body.source as { id: string }).id);
    }
  });

  it('asks for every source on one tick, and the queue polls all 20 inside the subrequests of an invocation', async () => {
    /** One tick: the cron's requests, then the consumer's batches; the subrequests of the costliest batch and per poll. */
    const tick = async () => {
      const asked = keepingQueue();
      const readsBefore = await Promise.all(pages.map(pageReads));
      await runScheduled({ ...testEnv, DELIVERIES: testEnv.PARKED, SOURCES: asked.queue } as unknown as WorkerEnv);
      // One request per source, in one send; the tick itself read no page.
      expect(asked.kept.map((r) => r.sourceId).sort()).toEqual([...ids].sort());
      expect(asked.calls()).toBe(1);
      expect(await Promise.all(pages.map(pageReads))).toEqual(readsBefore);
      const { maxBatchSize, maxRetries } = sourcesConsumer();
      expect([maxBatchSize > 0, maxRetries > 0]).toEqual([true, true]);
      let worstBatch = 0;
      let total = 0;
      for (let start = 0; start < asked.kept.length; start += maxBatchSize) {
        const d1 = countingD1(DB);
        const before = await Promise.all(pages.map(pageReads));
        const { result } = await runSourcesQueue(asked.kept.slice(start, start + maxBatchSize), {
          ...testEnv,
          DB: d1.db,
          DELIVERIES: testEnv.PARKED,
        } as unknown as WorkerEnv);
        expect(result.retryMessages).toEqual([]);
        const after = await Promise.all(pages.map(pageReads));
        const batchSubrequests = after.reduce((sum, n, i) => sum + n - before[i]!, 0) + d1.calls();
        worstBatch = Math.max(worstBatch, batchSubrequests);
        total += batchSubrequests;
      }
      return { worstBatch, perPoll: total / asked.kept.length };
    };
    // A source's first read is its costliest poll: all three lists, its history backfilled.
    const first = await tick();
    const rows = await sourceRows();
    expect(ids.filter((id) => rows.get(id)?.last_success_ms == null)).toEqual([]);
    // A minute later nothing changed: each poll is one conditional read and its bookkeeping.
    const quiet = await tick();
    expect(first.perPoll).toBeLessThanOrEqual(SUBREQUESTS_PER_FIRST_POLL);
    expect(quiet.perPoll).toBeLessThanOrEqual(SUBREQUESTS_PER_QUIET_POLL);
    // A full batch of first reads fits one invocation of the Paid plan.
    expect(sourcesConsumer().maxBatchSize * SUBREQUESTS_PER_FIRST_POLL).toBeLessThanOrEqual(PAID_SUBREQUESTS_PER_INVOCATION);
    expect(first.worstBatch).toBeLessThanOrEqual(PAID_SUBREQUESTS_PER_INVOCATION);
  });

  it('polls every source through the real queue on one tick, a dead and a slow page holding back no other', async () => {
    const timeoutMs = Number(testEnv.POLL_TIMEOUT_MS);
    // The first page never answers; the second answers each read a little before the time limit.
    await pages[0]!.fault({ target: '*', kind: 'timeout' });
    await pages[1]!.fault({ target: '*', kind: 'slow', delayMs: timeoutMs - 1000 });
    const healthy = ids.slice(2);
    const tickAt = Date.now();
    // The deliveries queue parked: this test is about the sources queue's own consumer.
    await runScheduled({ ...testEnv, DELIVERIES: testEnv.PARKED } as unknown as WorkerEnv);

    const readAt = new Map<string, number>();
    const deadline = tickAt + 4 * timeoutMs;
    while (Date.now() < deadline) {
      const rows = await sourceRows();
      for (const id of ids) if (!readAt.has(id) && (rows.get(id)?.last_success_ms != null || rows.get(id)?.last_failure_ms != null)) readAt.set(id, Date.now());
      if (readAt.size === ids.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Every healthy page read before the dead page's read could even time out.
    expect(healthy.filter((id) => !readAt.has(id))).toEqual([]);
    expect(Math.max(...healthy.map((id) => readAt.get(id)! - tickAt))).toBeLessThan(timeoutMs);
    const rows = await sourceRows();
    expect(rows.get(ids[0]!)).toMatchObject({ last_success_ms: null, last_error: expect.stringContaining(`within ${timeoutMs} ms`) });
    expect(rows.get(ids[1]!)?.last_success_ms).not.toBeNull();
  });

  it('polls a source once though its request comes twice at once, and not again for a request older than its last poll', async () => {
    const page = pages[0]!;
    const id = ids[0]!;
    await page.fault({ target: 'summary', kind: 'slow', delayMs: 1000, times: 1 });
    const before = await page.requests();
    const request: SourcePollRequest = { kind: 'poll_source', sourceId: id, askedAt: Date.now() };
    const [first, second] = await Promise.all([runSourcesQueue([request]), runSourcesQueue([request])]);
    const summaryReads = (await page.requests()).slice(before.length).filter((r) => r.path === '/api/v2/summary.json');
    expect(summaryReads).toHaveLength(1);
    // Both answered: the one that found the lease held leaves the poll to its holder.
    for (const { batch, result } of [first, second]) expect(result.explicitAcks).toEqual([batch.messages[0]!.id]);

    // Delivered again later (at least once means maybe twice): the poll it asked for is done.
    const late = await runSourcesQueue([request]);
    expect(late.result.explicitAcks).toHaveLength(1);
    expect((await page.requests()).slice(before.length).filter((r) => r.path === '/api/v2/summary.json')).toHaveLength(1);
  });

  it('acks a request for a source removed since, and asks the queue again when the archive fails', async () => {
    const id = ids[0]!;
    expect((await admin('DELETE', `/api/admin/sources/${id}`)).status).toBe(200);
    const gone = await runSourcesQueue([{ kind: 'poll_source', sourceId: id, askedAt: Date.now() }]);
    expect([gone.result.explicitAcks.length, gone.result.retryMessages]).toEqual([1, []]);

    // A database without its tables: the poll cannot even take its lease.
    const broken = await runSourcesQueue([{ kind: 'poll_source', sourceId: ids[1]!, askedAt: Date.now() }], {
      ...testEnv,
      DB: testEnv.EMPTY_DB,
    } as unknown as WorkerEnv);
    expect(broken.result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([broken.batch.messages[0]!.id]);
    expect(broken.result.explicitAcks).toEqual([]);
  });
});
