/**
 * SIGKILL of the service in the middle of fan-out (and of polls), over and over: in the end every
 * subscriber has received each change the vendor published that its filters let through, under
 * exactly one webhook-id, and only deliveries that were in flight at a kill are sent again.
 * CRASH_ROUNDS=100 npx vitest run test/integration/delivery-crash.test.ts runs the long version.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_CONCURRENCY } from '../../src/app/deliverer.ts';
import { runCli } from '../helpers/cli.ts';
import { compareArchive, compareWebhooks, countOkPolls, readArchive } from '../helpers/crash-oracle.ts';
import { crashStory, type StoryFilters } from '../helpers/crash-story.ts';
import { serveEnv, serveUntilSettled, spawnAndKill, subscribeAll } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);

/** 20 subscribers, a quarter each: everything, one service, two event types, a service and two event types. */
const FILTERS: StoryFilters[] = [
  {},
  { services: ['Files'] },
  { events: ['incident.created', 'incident.status_changed'] },
  { services: ['Calls'], events: ['incident.note_added', 'incident.note_edited'] },
];
const SUBSCRIPTIONS: Record<string, StoryFilters> = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`s${i}`, FILTERS[i % FILTERS.length]!]));

describe('delivery durability', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    // Answers held back a little: widens the window a kill can land in.
    receiver = await startWebhookReceiver({ answerDelayMs: () => Math.random() * 15 });
  });
  afterAll(async () => {
    await receiver.close();
    await vendor.close();
  });

  it(
    `loses no webhook and gives none a second id across ${CRASH_ROUNDS} SIGKILLs during fan-out`,
    async () => {
      const story = crashStory({ fillers: 0 });
      const database = join(tempDir(), 'archive.db');
      const env = serveEnv(database, vendor.url, { POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *' });
      await subscribeAll(env, receiver.url, SUBSCRIPTIONS);
      // Seeded before the crashes (an empty archive's first poll is history, never notified).
      let step = 0;
      await vendor.setIncidents(story.state(step));
      expect((await runCli(['poll'], env)).code).toBe(0);
      await vendor.setIncidents(story.state(++step));

      let killedWhileSending = 0;
      let spawnToCommitMs = 1000;
      const roundsStartedAt = Date.now();
      const commitTimesMs: number[] = [];
      for (let round = 1; round <= CRASH_ROUNDS; round++) {
        const before = receiver.received.length;
        // Every third round kills somewhere in startup or the poll itself (reading the feed, or
        // writing events and outbox); the others in the middle of fan-out, once the first request
        // of this round has arrived.
        const outcome = await spawnAndKill(
          env,
          round % 3 === 0
            ? { beforeCommit: { withinMs: 0.8 * spawnToCommitMs } }
            : {
                afterCommit: {
                  wait: async () => {
                    await receiver.waitFor(before + 1, 5_000).catch(() => {});
                    await new Promise((r) => setTimeout(r, Math.random() * 30));
                  },
                },
              },
        );
        spawnToCommitMs = outcome.spawnToCommitMs ?? spawnToCommitMs;
        if (outcome.spawnToCommitMs !== null) commitTimesMs.push(outcome.spawnToCommitMs);
        if (receiver.received.length > before) killedWhileSending++;
        // The vendor moves on only once its current state is archived: the expectation is exact.
        if (outcome.committed) await vendor.setIncidents(story.state(++step));
      }

      // A last process polls and sends what the killed ones left, then stops cleanly.
      const okBefore = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okBefore);
      // And a second restart polls the same state again: it must find nothing new. A change whose
      // write was lost behind the first process's cache is recorded again here, under a new id.
      const okSettled = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okSettled);
      const roundsMs = Date.now() - roundsStartedAt;

      const expected = story.changesUpTo(step);
      expect(compareArchive(expected, readArchive(database).events)).toEqual({ missing: [], unexpected: [], repeated: [], wrong: [] });
      const webhooks = compareWebhooks(expected, SUBSCRIPTIONS, receiver.received);
      expect(webhooks).toMatchObject({ missing: [], unexpected: [], underSeveralIds: [], wrong: [] });
      // Re-sends are only the deliveries in flight at a kill: at most the deliverer's concurrency,
      // and at most one per subscriber (a subscription's deliveries go one after another).
      const resent = webhooks.requests - webhooks.distinctIds;
      const inFlightAtMost = Math.min(DEFAULT_DELIVERY_CONCURRENCY, Object.keys(SUBSCRIPTIONS).length);
      expect(resent).toBeLessThanOrEqual(CRASH_ROUNDS * inFlightAtMost);
      console.log(
        `delivery crash test: ${CRASH_ROUNDS} kills (${killedWhileSending} during fan-out), ${step} vendor states, ` +
          `${webhooks.distinctIds} webhooks, ${resent} re-sent under their own webhook-id; ` +
          `${Math.round(roundsMs / CRASH_ROUNDS)} ms a round, the two restarts included (serve's spawn to first commit: ` +
          `${Math.round(commitTimesMs.reduce((a, b) => a + b, 0) / commitTimesMs.length)} ms)`,
      );
      expect(killedWhileSending).toBeGreaterThan(0);
    },
    60_000 + CRASH_ROUNDS * 15_000,
  );
});
