/**
 * Notifications, case 1: the poll's write when one piece of news meets many webhook subscribers
 * (deliveries planned as the poller plans them, the outbox rows written in the poll's
 * transaction), next to the same write with none.
 */
import type { TempArchive } from '../helpers/temp-archive.ts';
import { expectBench } from './harness.ts';
import { applyAsPoller, deliveryRows, newsPoll, openSubscribedArchive } from './notifications-world.ts';
import { interleave, summarize, type BenchCase, type Summary } from './stats.ts';

export type OutboxOptions = { subscribers: number; rounds: number; warmUpRounds: number };

export type OutboxFigures = { subscribers: number; baseline: Summary; subscribed: Summary; deliveriesPerRound: number[]; seedMs: number };

const NOWHERE = 'https://hooks.example.test/statuswatch';

export async function benchOutboxWrite(options: OutboxOptions, sealed: string): Promise<OutboxFigures> {
  const opened: TempArchive[] = [];
  try {
    const seedStarted = performance.now();
    const empty = await openSubscribedArchive('statuswatch-bench-outbox-0-', 0, NOWHERE, sealed);
    opened.push(empty);
    const subscribed = await openSubscribedArchive('statuswatch-bench-outbox-n-', options.subscribers, NOWHERE, sealed);
    opened.push(subscribed);
    const seedMs = performance.now() - seedStarted;

    // Both archives see the same news, in the same order: they differ only in their subscribers.
    let news = 0;
    const deliveriesPerRound: number[] = [];
    const applyCase = (name: string, archive: TempArchive, subscribers: number, written?: number[]): BenchCase => {
      let input: ReturnType<typeof newsPoll>['input'] | undefined;
      let before = 0;
      return {
        name,
        before() {
          input = newsPoll(news++).input;
          before = deliveryRows(archive);
        },
        run: () => applyAsPoller(archive.store, input!),
        after() {
          const rows = deliveryRows(archive) - before;
          expectBench(rows === subscribers, `${name}: one event should write ${subscribers} deliveries, wrote ${rows}`);
          written?.push(rows);
        },
      };
    };
    const cases = (written?: number[]) => [
      applyCase('applyPoll, 0 subscribers', empty, 0),
      applyCase(`applyPoll, ${options.subscribers} subscribers`, subscribed, options.subscribers, written),
    ];
    await interleave(cases(), options.warmUpRounds);
    const samples = [...(await interleave(cases(deliveriesPerRound), options.rounds)).values()];
    return {
      subscribers: options.subscribers,
      baseline: summarize(samples[0]!),
      subscribed: summarize(samples[1]!),
      deliveriesPerRound,
      seedMs,
    };
  } finally {
    for (const archive of opened) archive.remove();
  }
}
