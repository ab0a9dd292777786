/**
 * What the notification benchmarks share: archives with many webhook subscribers, polls that bring
 * one piece of news, a signing secret, and the webhook receiver in its child process.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { planPoll } from '../../src/core/diff.ts';
import type { StatusEvent } from '../../src/core/events.ts';
import { planDeliveries } from '../../src/core/fanout.ts';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { nodeHashes } from '../../src/adapters/node-hashes.ts';
import { createChannelSender } from '../../src/app/channel-sender.ts';
import { createDeliverer, type Deliverer } from '../../src/app/deliverer.ts';
import type { ApplyPollInput, Clock, Logger, PollStore, Store, WebhookSender } from '../../src/core/ports.ts';
import { createSecretBox, generateSecretKey, type SecretBox } from '../../src/core/secret-box.ts';
import { generateWebhookSecret } from '../../src/core/webhook-signing.ts';
import { one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { expectBench } from './harness.ts';
import type { Collected, ReceiverCommand, ReceiverMessage, ReceiverRequest } from './notifications-receiver.ts';

/** Far above any vendor id, so bench incidents never collide with fixtures. */
const FIRST_BENCH_INCIDENT_ID = 900_000;

export type BenchSecrets = { box: SecretBox; secret: string; sealed: string };

/** One secret sealed once: every subscription carries the same sealed text, as opening it costs the same. */
export async function benchSecrets(): Promise<BenchSecrets> {
  const box = await createSecretBox(generateSecretKey());
  const secret = generateWebhookSecret();
  return { box, secret, sealed: await box.seal(secret) };
}

/** The n-th piece of news: a new incident, as the vendor's feed would show it. */
export function benchIncident(n: number): RawIncident {
  return rawIncident({ id: FIRST_BENCH_INCIDENT_ID + n, title: `Benchmark incident ${n}: some messages fail to send` });
}

/** A planned piece without its deliveries: applyAsPoller plans them against the archive's subscribers. */
export type NewsInput = Omit<ApplyPollInput, 'deliveries'>;

/** A poll that finds incident `n` new: exactly one non-backfill event, planned as the poller plans it. */
export function newsPoll(n: number, nowMs = Date.now()): { input: NewsInput; event: StatusEvent } {
  const incident = one(benchIncident(n));
  const plan = planPoll({ observed: [incident], archived: new Map(), now: nowMs, backfill: false });
  const [event, ...rest] = plan.events;
  expectBench(
    event?.type === 'incident.created' && rest.length === 0,
    `a new incident should make one incident.created, got ${plan.events.map((e) => e.type).join(', ')}`,
  );
  const run = { id: `bench-news-${n}-${nowMs}`, startedAt: nowMs, finishedAt: nowMs, outcome: 'ok' as const, sources: [], changes: { 'incident.created': 1 } };
  return { input: { run, plan, seenIds: [incident.id], seenBefore: nowMs, rejected: [], markSeeded: false }, event };
}

/** What the poller does with a planned piece: deliveries planned for the active subscriptions, then one apply. */
export async function applyAsPoller(store: PollStore, input: NewsInput): Promise<number> {
  return store.applyPoll({ ...input, deliveries: planDeliveries(input.plan.events, await store.activeSubscriptions()) });
}

/**
 * An empty archive marked seeded (so later events are news, not backfill) with `subscribers`
 * active webhook subscriptions to `target`, written in one transaction through the store.
 */
/**
 * A deliverer of webhooks (no mailer) over an archive of webhook subscriptions sealed with
 * `secrets`, built as the service builds its own; `name` tells its claims apart in the database.
 */
export function webhookDeliverer(
  store: Store,
  secrets: BenchSecrets,
  webhooks: WebhookSender,
  options: { clock: Clock; logger: Logger; name: string; publicUrl?: string; random?: () => number },
): Deliverer {
  const { clock, logger, random } = options;
  const publicUrl = options.publicUrl ?? 'http://status.test';
  return createDeliverer({
    store,
    sender: createChannelSender({ store, webhooks, mailer: null, secrets: secrets.box, hashes: nodeHashes, clock, publicUrl, sanitizeHtml: sanitizeNoteHtml }),
    mailer: null,
    clock,
    logger,
    publicUrl,
    instanceId: `test:${process.pid}:${options.name}`,
    isHolderGone: () => false,
    ...(random ? { random } : {}),
  });
}

export async function openSubscribedArchive(prefix: string, subscribers: number, target: string, sealed: string): Promise<TempArchive> {
  const archive = openTempArchive(tempDir(prefix));
  try {
    const nowMs = Date.now();
    const seedRun = { id: 'bench-seed', startedAt: nowMs, finishedAt: nowMs, outcome: 'ok' as const, sources: [], changes: {} };
    await archive.store.applyPoll({
      deliveries: [],
      run: seedRun,
      plan: { writes: [], events: [] },
      seenIds: [],
      seenBefore: nowMs,
      rejected: [],
      markSeeded: true,
    });
    expectBench(await archive.store.isSeeded(), 'the benchmark archive should be seeded');
    // The store's createSubscription writes synchronously; one transaction around all keeps 10,000 fast.
    archive.sqlite.exec('BEGIN');
    try {
      for (let i = 0; i < subscribers; i++) {
        await archive.store.createSubscription({
          id: `sub_bench${String(i).padStart(6, '0')}`,
          channel: 'webhook',
          target,
          filters: {},
          timeZone: 'UTC',
          status: 'active',
          origin: 'admin',
          pausedReason: null,
          secretSealed: sealed,
          previousSecretSealed: null,
          previousSecretUntil: null,
          failingSince: null,
          lastSuccessAt: null,
          createdAt: nowMs,
          updatedAt: nowMs,
        });
      }
      archive.sqlite.exec('COMMIT');
    } catch (error) {
      archive.sqlite.exec('ROLLBACK');
      throw error;
    }
    return archive;
  } catch (error) {
    archive.remove();
    throw error;
  }
}

/** Rows in the outbox: counted untimed, after a measured write. */
export function deliveryRows(archive: TempArchive): number {
  return archive.sqlite.prepare('SELECT count(*) FROM deliveries').pluck().get() as number;
}

export type ReceiverProcess = {
  /** Where to POST: `http://127.0.0.1:<port>/hook`. */
  url: string;
  /** Forgets what arrived so far. */
  reset(): Promise<void>;
  /** What arrived since the reset, once `count` POSTs have (or after `timeoutMs`, with fewer). */
  collect(count: number, timeoutMs: number): Promise<Collected>;
  close(): Promise<void>;
};

const RECEIVER = fileURLToPath(new URL('./notifications-receiver.ts', import.meta.url));
const RECEIVER_START_TIMEOUT_MS = 15_000;

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const answers = new Map<number, (message: ReceiverMessage) => void>();
  let ready: ((port: number) => void) | undefined;
  child.on('message', (message: ReceiverMessage) => {
    if (message.type === 'ready') ready?.(message.port);
    else answers.get(message.id)?.(message);
  });
  let nextId = 1;
  const ask = (command: ReceiverCommand) =>
    new Promise<ReceiverMessage>((resolve) => {
      const id = nextId++;
      answers.set(id, (message) => {
        answers.delete(id);
        resolve(message);
      });
      const request: ReceiverRequest = { ...command, id };
      child.send(request);
    });
  const close = async () => {
    if (child.connected) child.disconnect();
    await exited;
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the webhook receiver did not start')), RECEIVER_START_TIMEOUT_MS);
      ready = (p) => (clearTimeout(timer), resolve(p));
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the webhook receiver exited with ${code}`))));
    });
    return {
      url: `http://127.0.0.1:${port}/hook`,
      reset: async () => void (await ask({ type: 'reset' })),
      async collect(count, timeoutMs) {
        const answer = await ask({ type: 'collect', count, timeoutMs });
        if (answer.type !== 'collected') throw new Error(`the receiver answered ${answer.type} to collect`);
        return { arrivals: answer.arrivals, bodyBytes: answer.bodyBytes, headerNames: answer.headerNames };
      },
      close,
    };
  } catch (error) {
    if (child.exitCode === null) child.kill();
    throw error;
  }
}
