/**
 * Notifications, case 4: the real service, in-process, with many webhook subscribers to one
 * receiver in another process: from the end of a poll that found one new incident to each
 * webhook's arrival. There is no baseline: the figure is a latency, not a cost next to a floor.
 */
import { rmSync } from 'node:fs';
import type { RawIncident } from '../fixtures/vendor-builders.ts';
import { startTestService, startTestVendor, type TestService } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { expectBench } from './harness.ts';
import { benchIncident, type ReceiverProcess } from './notifications-world.ts';
import { summarize, type Summary } from './stats.ts';

export type PollToWebhookOptions = { subscribers: number; rounds: number; warmUpRounds: number };

export type PollToWebhookFigures = {
  subscribers: number;
  rounds: number;
  /** Creating the subscriptions through the admin API, all of them. */
  subscribeMs: number;
  /** Every webhook of every round, ms after the poll returned. */
  all: Summary;
  /** Per round: the first and the last webhook to arrive. */
  first: Summary;
  last: Summary;
};

/** Admin API calls in flight while subscribing: a script, not a crowd. */
const SUBSCRIBE_CONCURRENCY = 8;
const ARRIVAL_TIMEOUT_MS = 60_000;

export async function benchPollToWebhook(options: PollToWebhookOptions, receiver: ReceiverProcess): Promise<PollToWebhookFigures> {
  const dir = tempDir('statuswatch-bench-latency-');
  const vendor = await startTestVendor({ historyWindowDays: 100_000 });
  let service: TestService | undefined;
  try {
    service = await startTestService(vendor.url, { dir, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const seeding = await service.poll();
    expectBench(seeding.outcome === 'ok', `the seeding poll should succeed, got ${JSON.stringify(seeding).slice(0, 300)}`);
    const subscribeMs = await subscribe(service, receiver.url, options.subscribers);

    const feed: RawIncident[] = [];
    const all: number[] = [];
    const first: number[] = [];
    const last: number[] = [];
    for (let round = 0; round < options.warmUpRounds + options.rounds; round++) {
      feed.push(benchIncident(round));
      await vendor.setIncidents(feed);
      await receiver.reset();
      const polled = await service.poll();
      const pollEndedAt = Date.now();
      // A poll with news signals the outbox itself (app/poller.ts), admin-triggered or scheduled.
      expectBench(
        polled.outcome === 'ok' && polled.events?.length === 1,
        `the poll should find the one new incident, got ${JSON.stringify(polled).slice(0, 300)}`,
      );
      const got = await receiver.collect(options.subscribers, ARRIVAL_TIMEOUT_MS);
      expectBench(got.arrivals.length === options.subscribers, `${options.subscribers} webhooks should arrive, got ${got.arrivals.length}`);
      if (round < options.warmUpRounds) continue;
      const latencies = got.arrivals.map((at) => at - pollEndedAt);
      all.push(...latencies);
      first.push(Math.min(...latencies));
      last.push(Math.max(...latencies));
    }
    return {
      subscribers: options.subscribers,
      rounds: options.rounds,
      subscribeMs,
      all: summarize(all),
      first: summarize(first),
      last: summarize(last),
    };
  } finally {
    await service?.close();
    await vendor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Webhook subscriptions through the admin API, as an operator's script would make them. */
async function subscribe(service: TestService, url: string, count: number): Promise<number> {
  const started = performance.now();
  let made = 0;
  const worker = async () => {
    while (made < count) {
      made++;
      const res = await service.admin('POST', '/api/subscriptions', { channel: 'webhook', url });
      expectBench(res.status === 201, `POST /api/subscriptions: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: SUBSCRIBE_CONCURRENCY }, worker));
  return performance.now() - started;
}
