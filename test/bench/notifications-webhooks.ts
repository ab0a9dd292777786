/**
 * Notifications, case 2: the deliverer draining N pending webhook deliveries to a receiver in
 * another process, next to a bare undici client posting the same body and headers, as many
 * requests at the same concurrency, to the same receiver.
 */
import { Agent, request } from 'undici';
import { createHttpWebhookSender } from '../../src/adapters/http-webhook-sender.ts';
import { DEFAULT_DELIVERY_CONCURRENCY, type DeliveryRound } from '../../src/app/deliverer.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import { webhookMessageId } from '../../src/core/fanout.ts';
import { webhookHeaders } from '../../src/core/webhook-signing.ts';
import { webhookPayloadOf } from '../../src/core/webhook-payload.ts';
import { USER_AGENT } from '../../src/entry/node.ts';
import { checkpointInBackground } from '../../src/entry/wal-checkpoints.ts';
import { expectBench, silentLogger } from './harness.ts';
import type { Collected } from './notifications-receiver.ts';
import { applyAsPoller, type BenchSecrets, newsPoll, openSubscribedArchive, type ReceiverProcess, webhookDeliverer } from './notifications-world.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';
import { MAIN_FEED_SOURCE } from '../../src/core/statuspage/mapping.ts';

export type WebhookThroughputOptions = { deliveries: number; rounds: number; warmUpRounds: number };

export type WebhookFigures = {
  deliveries: number;
  /** Milliseconds per round of `deliveries` requests. */
  deliverer: Summary;
  bare: Summary;
  /** CPU milliseconds of this process (user + system) per round, the receiver's own excluded. */
  cpu: { deliverer: Summary; bare: Summary };
  /** Per request, as the receiver counted them. */
  bodyBytes: { deliverer: number; bare: number };
};

/** What the deliverer keeps in flight; the baseline keeps as many. */
export const DELIVERY_CONCURRENCY = DEFAULT_DELIVERY_CONCURRENCY;
const COLLECT_TIMEOUT_MS = 10_000;

export async function benchWebhookThroughput(options: WebhookThroughputOptions, secrets: BenchSecrets, receiver: ReceiverProcess): Promise<WebhookFigures> {
  const n = options.deliveries;
  // One delivery per subscriber per event: N subscribers, and every round one new event.
  const archive = await openSubscribedArchive('statuswatch-bench-webhooks-', n, receiver.url, secrets.sealed);
  // As serve's archive: its WAL checkpoints on a thread of their own, not in the deliverer's commits.
  const checkpoints = checkpointInBackground(archive, { logger: silentLogger, clock: { now: () => Date.now() } });
  const webhooks = createHttpWebhookSender({ allowPrivate: true, userAgent: USER_AGENT });
  const bareAgent = new Agent();
  try {
    const clock = { now: () => Date.now() };
    const publicUrl = 'https://status.example.test';
    const deliverer = webhookDeliverer(archive.store, secrets, webhooks, { clock, logger: silentLogger, name: 'webhooks', publicUrl });
    let news = 0;
    const received = { deliverer: [] as Collected[], bare: [] as Collected[] };
    const cpu = { deliverer: [] as number[], bare: [] as number[] };

    const ours: BenchCase = {
      name: 'deliverer.deliverDue()',
      async before() {
        await applyAsPoller(archive.store, newsPoll(news++).input);
        await receiver.reset();
      },
      run: () => cpuOf(cpu.deliverer, () => deliverer.deliverDue()),
      async after(value) {
        const round = value as DeliveryRound;
        expectBench(round.claimed === n && round.done === n, `the deliverer should send ${n} deliveries, got ${JSON.stringify(round)}`);
        received.deliverer.push(await expectArrivals(receiver, n, 'the deliverer'));
      },
    };
    // A first round, untimed, checks the setup and gives the event whose body the baseline posts.
    const first = newsPoll(news++);
    await applyAsPoller(archive.store, first.input);
    await receiver.reset();
    await ours.after!(await deliverer.deliverDue());
    const bare = bareClient(bareAgent, receiver.url, await signedLikeOurs(first.event, secrets.secret), n);
    const baseline: BenchCase = {
      name: 'bare undici client',
      before: () => receiver.reset(),
      run: () => cpuOf(cpu.bare, bare),
      async after() {
        received.bare.push(await expectArrivals(receiver, n, 'the bare client'));
      },
    };

    await interleave([baseline, ours], options.warmUpRounds);
    received.deliverer.length = 0;
    received.bare.length = 0;
    cpu.deliverer.length = 0;
    cpu.bare.length = 0;
    const samples = await interleave([baseline, ours], options.rounds);

    // The comparison is fair only if both sent the same: the same headers, bodies of the same size.
    const ourLast = received.deliverer.at(-1)!;
    const bareLast = received.bare.at(-1)!;
    expectBench(
      ourLast.headerNames.join() === bareLast.headerNames.join(),
      `the baseline should send the deliverer's headers: ours ${ourLast.headerNames.join()}, bare ${bareLast.headerNames.join()}`,
    );
    const bodyBytes = { deliverer: ourLast.bodyBytes / n, bare: bareLast.bodyBytes / n };
    expectBench(
      Math.abs(bodyBytes.deliverer - bodyBytes.bare) <= 0.05 * bodyBytes.bare,
      `the baseline's body should be the deliverer's size: ${bodyBytes.bare} vs ${bodyBytes.deliverer} bytes`,
    );
    return {
      deliveries: n,
      deliverer: summarize(samples.get(ours.name)!),
      bare: summarize(samples.get(baseline.name)!),
      cpu: { deliverer: summarize(cpu.deliverer), bare: summarize(cpu.bare) },
      bodyBytes,
    };
  } finally {
    await webhooks.close();
    await bareAgent.close();
    await checkpoints.stop();
    archive.remove();
  }
}

/** The body and headers the deliverer sends for `event`, signed once: the baseline sends them as they are. */
async function signedLikeOurs(event: StatusEvent, secret: string): Promise<{ body: string; headers: Record<string, string> }> {
  // The deliverer's webhooks carry their source; the bench's sender was given no main feed name,
  // so it names the main feed by its id.
  const body = JSON.stringify(webhookPayloadOf(event, { id: MAIN_FEED_SOURCE, name: MAIN_FEED_SOURCE }));
  const headers = await webhookHeaders({
    id: await webhookMessageId(`${event.id}|sub_bench000000`),
    timestampSeconds: Math.floor(Date.now() / 1000),
    body,
    secrets: [secret],
  });
  return { body, headers: { ...headers, 'user-agent': USER_AGENT } };
}

/** `count` POSTs, DELIVERY_CONCURRENCY in flight, on one keep-alive Agent: HTTP and nothing else. */
function bareClient(agent: Agent, url: string, signed: { body: string; headers: Record<string, string> }, count: number): () => Promise<void> {
  return async () => {
    let left = count;
    const worker = async () => {
      while (left-- > 0) {
        const response = await request(url, { dispatcher: agent, method: 'POST', headers: signed.headers, body: signed.body });
        const answer = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`bare client: HTTP ${response.statusCode}: ${answer.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, worker));
  };
}

/** Runs `run`, adding the CPU milliseconds this process spent meanwhile to `samples`. */
async function cpuOf<T>(samples: number[], run: () => Promise<T>): Promise<T> {
  const start = process.cpuUsage();
  const value = await run();
  const used = process.cpuUsage(start);
  samples.push((used.user + used.system) / 1000);
  return value;
}

async function expectArrivals(receiver: ReceiverProcess, count: number, who: string): Promise<Collected> {
  const got = await receiver.collect(count, COLLECT_TIMEOUT_MS);
  expectBench(got.arrivals.length === count, `${who}: the receiver should have got ${count} requests, got ${got.arrivals.length}`);
  return got;
}
