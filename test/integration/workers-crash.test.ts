/**
 * The Workers form killed over and over in the middle of its polls and its fan-out: the Worker as
 * wrangler bundles it, in Miniflare (workerd) with D1 persisted on disk and the deliveries queue of
 * wrangler.toml, is ended with `dispose()` while its cron or queue invocation runs (the whole
 * runtime goes, like a SIGKILL), then started again on the same D1. In the end every subscriber has
 * received each change the vendor published that its filters let through, under exactly one
 * webhook-id, and the archive holds each change once: the oracle of the Node crash tests.
 * CRASH_ROUNDS=100 npx vitest run test/integration/workers-crash.test.ts runs the long version.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareArchive, compareWebhooks, type ArchiveSnapshot } from '../helpers/crash-oracle.ts';
import { crashStory, type StoryFilters } from '../helpers/crash-story.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { bundleWorker, startWorkerRuntime, type WorkerBundle, type WorkerRuntime } from '../helpers/worker-runtime-process.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const ADMIN_TOKEN = 'workers-crash-admin-token-0123456789';
/**
 * How long a killed invocation's poll lease and delivery claims last. A Worker cannot see that an
 * invocation died, so they free themselves only by expiring (2 and 1 minutes by default); short
 * here, or each kill would stall the test for minutes. What expires is the same either way.
 */
const LEASE_MS = 3000;

/**
 * Retitled in every vendor state: a poll of five atomic pieces (10 incidents each) a kill can land
 * between, inside the 50 incidents a Worker's poll writes (wrangler.toml's
 * POLL_MAX_INCIDENT_CHANGES), so one cron tick archives a whole state.
 */
const FILLERS = 45;

/**
 * 20 subscribers, a quarter each: both story services (everything but the fillers' retitles), one
 * service, two event types, a service and two event types.
 */
const FILTERS: StoryFilters[] = [
  { services: ['Files', 'Calls'] },
  { services: ['Files'] },
  { events: ['incident.created', 'incident.status_changed'] },
  { services: ['Calls'], events: ['incident.note_added', 'incident.note_edited'] },
];
const SUBSCRIPTIONS: Record<string, StoryFilters> = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`s${i}`, FILTERS[i % FILTERS.length]!]));

/** Polls that read the whole feed and left nothing for a later poll: the vendor's state is archived. */
async function completePolls(runtime: WorkerRuntime): Promise<number> {
  const [row] = await runtime.query<{ n: number }>("SELECT count(*) AS n FROM poll_runs WHERE outcome = 'ok' AND pending_incidents = 0");
  return row?.n ?? 0;
}

async function pendingDeliveries(runtime: WorkerRuntime): Promise<number> {
  const res = await runtime.fetch('/api/deliveries?state=pending&limit=1', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`GET /api/deliveries: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { deliveries: unknown[] }).deliveries.length;
}

/** Who holds delivery claims now: after a kill, invocations that are gone. */
async function claimHolders(runtime: WorkerRuntime): Promise<Set<string>> {
  const rows = await runtime.query<{ holder: string }>(
    "SELECT DISTINCT claimed_by AS holder FROM deliveries WHERE state = 'pending' AND claimed_by IS NOT NULL",
  );
  return new Set(rows.map((r) => r.holder));
}

/**
 * Where a kill landed, read from what it left in D1 before anything runs again: the poll lease
 * (a poll deletes it when it ends, whatever happened), and claims of holders that were not there
 * before it (a queue round claims, sends, then records each attempt and so ends its claim).
 */
async function leftByTheKill(runtime: WorkerRuntime, holdersBefore: Set<string>): Promise<{ pollLease: boolean; claims: number }> {
  const leases = await runtime.query<{ name: string }>("SELECT name FROM leases WHERE name = 'poll'");
  const claims = await runtime.query<{ holder: string }>("SELECT claimed_by AS holder FROM deliveries WHERE state = 'pending' AND claimed_by IS NOT NULL");
  return { pollLease: leases.length > 0, claims: claims.filter((c) => !holdersBefore.has(c.holder)).length };
}

/** The version suffixes the fillers carry in the archive: one that never existed is a half-applied piece. */
async function fillerVersions(runtime: WorkerRuntime): Promise<Set<string>> {
  const rows = await runtime.query<{ title: string }>("SELECT title FROM incidents WHERE title LIKE 'Incident %'");
  return new Set(rows.map((r) => r.title.replace(/^Incident \d+ /, '')));
}

async function archivedEvents(runtime: WorkerRuntime): Promise<ArchiveSnapshot['events']> {
  const rows = await runtime.query<{ id: string; type: ArchiveSnapshot['events'][number]['type']; backfill: number; dataJson: string }>(
    'SELECT id, type, backfill, data_json AS dataJson FROM events ORDER BY seq',
  );
  return rows.map((e) => ({ ...e, backfill: Boolean(e.backfill) }));
}

/**
 * Where a round kills the runtime: in the middle of the queue consumer's fan-out (once the first
 * webhook of the round has arrived), just after the cron invocation returned (its wake-up sent,
 * not yet consumed), or at a random moment of the cron invocation (reading the feed, writing the
 * archive and the outbox in pieces).
 */
type KillKind = 'fan-out' | 'wake-up' | 'poll';
const NEXT_KIND: Record<KillKind, KillKind> = { 'fan-out': 'wake-up', 'wake-up': 'poll', poll: 'fan-out' };
/** wrangler.toml's max_batch_timeout: how long the local queue may hold a message before its consumer runs. */
const QUEUE_BATCH_TIMEOUT_MS = 1000;

/** Deliveries any invocation may claim now: pending, unclaimed (or the claim expired), due. */
async function dueDeliveries(runtime: WorkerRuntime): Promise<number[]> {
  const now = Date.now();
  const rows = await runtime.query<{ id: number }>(
    "SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt_ms <= ? AND (claim_until_ms IS NULL OR claim_until_ms <= ?)",
    now,
    now,
  );
  return rows.map((r) => r.id);
}

async function stillPending(runtime: WorkerRuntime, ids: number[]): Promise<number> {
  const [row] = await runtime.query<{ n: number }>(
    "SELECT count(*) AS n FROM deliveries WHERE state = 'pending' AND id IN (SELECT value FROM json_each(?))",
    JSON.stringify(ids),
  );
  return row?.n ?? 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the Workers form under kills', () => {
  /** Set for a fan-out round: the answer to that round's first webhook waits for it (until the kill). */
  let firstAnswerHeld: Promise<void> | null = null;
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  let bundle: WorkerBundle;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    // Answers held back a little: widens the window a kill can land in, as in the Node test. In a
    // fan-out round the first webhook's answer waits for the kill: the consumer's fastest rounds
    // ended within the few ms between the first webhook and a kill, which then found no claim.
    receiver = await startWebhookReceiver({
      answerDelayMs: () => Math.random() * 15,
      beforeAnswer: () => {
        const held = firstAnswerHeld;
        firstAnswerHeld = null;
        return held ?? Promise.resolve();
      },
    });
    bundle = await bundleWorker();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await vendor?.close();
  });

  it(
    `loses no webhook and gives none a second id across ${CRASH_ROUNDS} kills of the runtime during polls and fan-out`,
    async () => {
      const story = crashStory({ fillers: FILLERS });
      const persistDir = tempDir('statuswatch-workers-crash-');
      const settings = {
        STATUS_URL: vendor.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ADMIN_TOKEN,
        SECRET_KEY: randomBytes(32).toString('hex'),
        POLL_LEASE_MS: String(LEASE_MS),
        DELIVERY_CLAIM_MS: String(LEASE_MS),
        LOG_LEVEL: 'error',
      };
      const start = () => startWorkerRuntime({ bundle, persistDir, settings });
      let runtime = await start();
      try {
        for (const [name, filters] of Object.entries(SUBSCRIPTIONS)) {
          const res = await runtime.fetch('/api/subscriptions', {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ channel: 'webhook', url: `${receiver.url}?s=${name}`, filters }),
          });
          expect(res.status, await res.clone().text()).toBe(201);
        }
        // Seeded before the kills (an empty archive's first poll is history, never notified).
        let step = 0;
        await vendor.setIncidents(story.state(step));
        await runtime.scheduled();
        expect(await completePolls(runtime)).toBe(1);
        await vendor.setIncidents(story.state(++step));

        const landed = { duringPoll: 0, betweenPieces: 0, duringFanOut: 0, elsewhere: 0 };
        let claimsLeft = 0;
        let wakeUpsRecovered = 0;
        // How long a cron invocation (poll and wake-up) took last time: a kill meant for the poll
        // lands within it.
        let cronMs = 300;
        let kind: KillKind = 'fan-out';
        let releaseFirstAnswer = () => {};
        const restartsMs: number[] = [];
        const roundsStartedAt = Date.now();
        for (let round = 1; round <= CRASH_ROUNDS; round++) {
          const before = receiver.received.length;
          // A poll killed last round holds its lease until it expires: the cron ticks until then
          // are skipped, and only waste a round here.
          const [lease] = await runtime.query<{ expiresMs: number }>("SELECT expires_ms AS expiresMs FROM leases WHERE name = 'poll'");
          if (lease) await sleep(lease.expiresMs - Date.now() + 50);
          const completeBefore = await completePolls(runtime);
          const holdersBefore = await claimHolders(runtime);
          const firedAt = Date.now();
          let cronEnded = false;
          // Killed runtimes reject this: only a finished invocation tells how long one takes.
          const cron = runtime.scheduled().then(
            () => {
              cronMs = Date.now() - firedAt;
              cronEnded = true;
            },
            () => {},
          );
          if (kind === 'poll') {
            await sleep(Math.random() * cronMs);
          } else if (kind === 'fan-out') {
            firstAnswerHeld = new Promise<void>((resolve) => (releaseFirstAnswer = resolve));
            // A poll that brought no news sends nothing: then the kill comes a little after the
            // consumer would have started.
            const firstWebhook = receiver.waitFor(before + 1, 10_000).catch(() => {});
            const quietRound = cron.then(() => sleep(cronEnded ? 2000 : 0));
            await Promise.race([firstWebhook, quietRound]);
            await sleep(Math.random() * 30);
          } else {
            await cron;
          }
          await runtime.dispose();
          firstAnswerHeld = null;
          releaseFirstAnswer();
          await cron;
          const restartedAt = Date.now();
          runtime = await start();
          restartsMs.push(Date.now() - restartedAt);

          const left = await leftByTheKill(runtime, holdersBefore);
          if (left.pollLease) landed.duringPoll++;
          if (left.claims > 0) landed.duringFanOut++;
          if (!left.pollLease && left.claims === 0) landed.elsewhere++;
          claimsLeft += left.claims;
          // A poll applies its changes in atomic pieces: a kill leaves each incident at the version
          // the archive had or the one the vendor shows now, never one that did not exist.
          const versionsNow = new Set([story.fillerVersion(step), story.fillerVersion(step - 1)]);
          const versionsLeft = await fillerVersions(runtime);
          for (const version of versionsLeft) expect(versionsNow).toContain(version);
          if (versionsLeft.size > 1) landed.betweenPieces++;

          if (kind === 'wake-up') {
            // The poll committed and sent its wake-up, and the runtime died before the consumer
            // took it (the queue waits up to max_batch_timeout to fill a batch). Nothing but the
            // next cron tick can send these now: its poll finds no news (the vendor has not moved
            // on), so only its look at the outbox can wake the queue.
            const due = await dueDeliveries(runtime);
            if (due.length > 0) {
              await sleep(QUEUE_BATCH_TIMEOUT_MS + 500);
              expect(await stillPending(runtime, due), 'the wake-up did not die with the runtime').toBe(due.length);
              await runtime.scheduled();
              const deadline = Date.now() + 15_000;
              while ((await stillPending(runtime, due)) > 0) {
                if (Date.now() > deadline) throw new Error(`the next cron tick did not send the ${due.length} deliveries whose wake-up was lost`);
                await sleep(100);
              }
              wakeUpsRecovered++;
            }
          }
          // A kill meant for a poll that missed it is tried again next round.
          kind = kind === 'poll' && !left.pollLease ? 'poll' : NEXT_KIND[kind];
          // The vendor moves on only once its current state is archived: the expectation is exact.
          if ((await completePolls(runtime)) > completeBefore) await vendor.setIncidents(story.state(++step));
        }

        // What a deployed Worker does after the kills: a cron tick a minute, and the queue consumer
        // the ticks wake, until the vendor's state is archived and nothing is left to send. Then a
        // second runtime polls the same state again: it must find nothing new.
        for (let pass = 0; pass < 2; pass++) {
          if (pass > 0) {
            await runtime.dispose();
            runtime = await start();
          }
          const completeBefore = await completePolls(runtime);
          const deadline = Date.now() + 60_000;
          for (;;) {
            await runtime.scheduled();
            if ((await completePolls(runtime)) > completeBefore && (await pendingDeliveries(runtime)) === 0) break;
            if (Date.now() > deadline) throw new Error('the Worker did not settle: a poll or deliveries still pending after 60 s');
            await sleep(500);
          }
        }
        const roundsMs = Date.now() - roundsStartedAt;
        // A webhook the queue consumer has sent may still be on its way to the receiver.
        await sleep(500);

        expect([...(await fillerVersions(runtime))]).toEqual([story.fillerVersion(step)]);
        const expected = story.changesUpTo(step);
        expect(compareArchive(expected, await archivedEvents(runtime))).toEqual({ missing: [], unexpected: [], repeated: [], wrong: [] });
        const webhooks = compareWebhooks(expected, SUBSCRIPTIONS, receiver.received);
        expect(webhooks).toMatchObject({ missing: [], unexpected: [], underSeveralIds: [], wrong: [] });
        // Re-sent are only deliveries a killed invocation had claimed (sent, or not yet, or sent and
        // not yet recorded): never one whose attempt was recorded.
        const resent = webhooks.requests - webhooks.distinctIds;
        expect(resent).toBeLessThanOrEqual(claimsLeft);
        console.log(
          `workers crash test: ${CRASH_ROUNDS} kills of the runtime (${landed.duringPoll} during a poll, ${landed.betweenPieces} of them ` +
            `between its atomic pieces, ${landed.duringFanOut} during fan-out ` +
            `with ${claimsLeft} claims left behind, ${landed.elsewhere} elsewhere, of which ${wakeUpsRecovered} lost a wake-up the next cron tick made good), ` +
            `${step} vendor states, ${webhooks.distinctIds} webhooks, ` +
            `${resent} re-sent under their own webhook-id; ${Math.round(roundsMs / CRASH_ROUNDS)} ms a round, ` +
            `the settling and the second runtime included (a restart of the runtime on its D1: ` +
            `${Math.round(restartsMs.reduce((a, b) => a + b, 0) / restartsMs.length)} ms; a cron invocation: ${cronMs} ms)`,
        );
        // The first rounds are a fan-out kill and a lost wake-up; the third and later try the poll.
        if (CRASH_ROUNDS >= 2) {
          expect(landed.duringFanOut).toBeGreaterThan(0);
          expect(wakeUpsRecovered).toBeGreaterThan(0);
        }
        if (CRASH_ROUNDS >= 4) expect(landed.duringPoll).toBeGreaterThan(0);
      } finally {
        await runtime.dispose();
        rmSync(persistDir, { recursive: true, force: true });
      }
    },
    120_000 + CRASH_ROUNDS * 15_000,
  );
});
