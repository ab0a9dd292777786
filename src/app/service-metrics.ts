/** The service's own metrics: what the poller and the deliverer count, and the gauges read from the store when /metrics is scraped. */
import { createMetricsRegistry, DELIVERY_LATENCY_BUCKETS, POLL_DURATION_BUCKETS, type GaugeSample, type MetricsRegistry } from '../core/metrics.ts';
import type { ArchiveQueries, Clock, OutboxStore } from '../core/ports.ts';
import type { PollResult } from './poller.ts';

/** What the gauges are read from when /metrics is scraped: the outbox's counts and the feed's health. */
export type MetricsStore = Pick<OutboxStore, 'deliveryCounts'> & Pick<ArchiveQueries, 'feedHealth'>;

export type ServiceMetrics = {
  registry: MetricsRegistry;
  /** For PollerDeps.onResult: counts each poll's outcome, duration and events. */
  recordPoll(result: PollResult): void;
  /** For DelivererDeps.onAttempt. */
  recordAttempt(channel: string, outcome: 'done' | 'retry' | 'dead', latencyMs: number): void;
  /** The exposition text, with the store's gauges read now. */
  scrape(store: MetricsStore, clock: Clock): Promise<string>;
};

export function createServiceMetrics(): ServiceMetrics {
  const registry = createMetricsRegistry();
  const polls = registry.counter('statuswatch_polls_total', 'Polls of the vendor feed by outcome (ok, partial, failed, skipped), in this process.');
  const pollDuration = registry.histogram('statuswatch_poll_duration_seconds', 'Duration of polls that ran, in seconds.', POLL_DURATION_BUCKETS);
  const events = registry.counter('statuswatch_events_total', 'Events recorded by polls of this process, by type (backfill included, labelled).');
  const attempts = registry.counter('statuswatch_delivery_attempts_total', 'Delivery attempts by channel and what followed (done, retry, dead).');
  const latency = registry.histogram(
    'statuswatch_delivery_latency_seconds',
    'From a delivery being written to the outbox to its confirmation (2xx, SMTP 250), by channel.',
    DELIVERY_LATENCY_BUCKETS,
  );

  return {
    registry,
    recordPoll(result) {
      polls.inc({ outcome: result.status });
      if (result.status !== 'skipped') {
        pollDuration.observe((result.run.finishedAt - result.run.startedAt) / 1000);
        for (const event of result.events) events.inc({ type: event.type, backfill: String(event.backfill) });
      }
    },
    recordAttempt(channel, outcome, latencyMs) {
      attempts.inc({ channel, outcome });
      if (outcome === 'done') latency.observe(latencyMs / 1000, { channel });
    },
    async scrape(store, clock) {
      const now = clock.now();
      const [counts, health] = await Promise.all([store.deliveryCounts(now), store.feedHealth()]);
      const gauges: GaugeSample[] = [
        {
          name: 'statuswatch_deliveries',
          help: 'Deliveries in the outbox by state (all processes sharing the database).',
          values: (['pending', 'done', 'dead'] as const).map((state) => ({ labels: { state }, value: counts[state] })),
        },
        { name: 'statuswatch_outbox_due', help: 'Pending deliveries due now: the outbox depth.', values: [{ value: counts.due }] },
        {
          name: 'statuswatch_outbox_oldest_due_age_seconds',
          help: 'Age of the oldest pending delivery that is due, in seconds (0 when none).',
          values: [{ value: counts.oldestPendingAt === null ? 0 : Math.max(0, (now - counts.oldestPendingAt) / 1000) }],
        },
        {
          name: 'statuswatch_feed_consecutive_failures',
          help: 'Polls that failed since the last successful one.',
          values: [{ value: health.consecutiveFailures }],
        },
        {
          name: 'statuswatch_feed_last_success_timestamp_seconds',
          help: 'When the feed was last read successfully, Unix time (0 when never).',
          values: [{ value: health.lastSuccessAt === null ? 0 : health.lastSuccessAt / 1000 }],
        },
      ];
      return registry.render(gauges);
    },
  };
}
