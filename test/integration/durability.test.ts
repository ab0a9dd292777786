/**
 * Restarts, two processes on one database file, and SIGKILL of the running service (its scheduled
 * polls and its deliverer) at random moments: the archive holds exactly the changes the vendor
 * published, each once, and every subscriber got each of its changes under one webhook-id.
 * CRASH_ROUNDS=100 npx vitest run test/integration/durability.test.ts runs the long version.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { compareArchive, compareWebhooks, countOkPolls, readArchive } from '../helpers/crash-oracle.ts';
import { crashStory, type StoryFilters } from '../helpers/crash-story.ts';
import { serveEnv, serveUntilSettled, spawnAndKill, subscribeAll } from '../helpers/serve-process.ts';
import { startTestService, startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
/** Retitled in every vendor state: a write of ~1,200 rows a kill can land inside. */
const FILLERS = 1200;
/** None of them wants the fillers' retitles, so the deliverer's work stays small. */
const SUBSCRIPTIONS: Record<string, StoryFilters> = {
  files: { services: ['Files'] },
  calls: { services: ['Calls'] },
  status: { events: ['incident.status_changed'] },
};

const NO_DIFFERENCES = { missing: [], unexpected: [], repeated: [], wrong: [] };

describe('durability', () => {
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await vendor.close();
  });

  it('survives a restart: the archive is kept and nothing is recorded again', async () => {
    const dir = tempDir();
    await vendor.setIncidents(crashStory({ fillers: 5 }).state(0));
    const first = await startTestService(vendor.url, { dir });
    expect((await first.poll()).events).toHaveLength(5);
    await first.close();

    const second = await startTestService(vendor.url, { dir });
    try {
      const again = await second.poll();
      expect(again).toMatchObject({ outcome: 'ok', events: [] });
      expect((await second.get('/api/incidents')).body.incidents).toHaveLength(5);
      expect((await second.get('/healthz')).body.status).toBe('ok');
    } finally {
      await second.close();
    }
  });

  it(
    `holds exactly the published changes when serve is killed at random (${CRASH_ROUNDS} SIGKILLs)`,
    async () => {
      const story = crashStory({ fillers: FILLERS });
      const database = join(tempDir(), 'archive.db');
      // Polls every second besides the one at start, and the deliverer runs: a kill can land in any of them.
      // A poll writes at most POLL_MAX_INCIDENT_CHANGES incidents: 500 makes each vendor state take
      // three polls (500, 500, then the rest), so kills also land between the polls of one state.
      const env = serveEnv(database, vendor.url, { POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *', POLL_MAX_INCIDENT_CHANGES: '500' });
      receiver.received.length = 0;
      await subscribeAll(env, receiver.url, SUBSCRIPTIONS);

      // The vendor moves to its next state only once a poll has committed the current one, so the
      // archive must have seen every state in order: the expectation is exact.
      let step = 0;
      await vendor.setIncidents(story.state(step));
      let interrupted = 0;
      // Startup and a 1,200-incident poll take about a second on a quiet machine, several times that
      // on a busy one: each waited-for commit measures it again, and a kill meant to land before
      // the commit comes within 80% of it (startup varies by a fifth from one spawn to the next).
      let spawnToCommitMs = 1500;
      const roundsStartedAt = Date.now();
      const commitTimesMs: number[] = [];
      for (let round = 1; round <= CRASH_ROUNDS; round++) {
        // Odd rounds wait for the commit and kill in the fan-out or a scheduled poll after it; even
        // rounds kill somewhere in startup, migrations, reading or writing the first poll.
        const outcome = await spawnAndKill(
          env,
          round % 2 === 1
            ? { afterCommit: { wait: () => new Promise((r) => setTimeout(r, Math.random() * 1000)) } }
            : { beforeCommit: { withinMs: 0.8 * spawnToCommitMs } },
        );
        spawnToCommitMs = outcome.spawnToCommitMs ?? spawnToCommitMs;
        if (outcome.spawnToCommitMs !== null) commitTimesMs.push(outcome.spawnToCommitMs);

        const after = readArchive(database);
        expect(after.integrity).toBe('ok');
        // A poll applies its changes in atomic pieces: a kill leaves each incident at the version the
        // archive had or the one the vendor shows now, never one that did not exist.
        const versionsNow = new Set([story.fillerVersion(step), ...(step > 0 ? [story.fillerVersion(step - 1)] : [])]);
        for (const version of after.fillerVersions) expect(versionsNow).toContain(version);
        if (outcome.committed) {
          // Committed means a poll found nothing left to write: the whole state is archived.
          expect(after.fillers).toBe(FILLERS);
          expect([...after.fillerVersions]).toEqual([story.fillerVersion(step)]);
          await vendor.setIncidents(story.state(++step));
        } else {
          interrupted++;
        }
      }

      // A clean restart catches up with whatever the killed ones did not commit or send.
      const okBefore = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okBefore);
      // And a second restart polls the same state again: it must find nothing new. A change whose
      // write was lost behind the first process's cache is recorded again here, under a new id.
      const okSettled = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okSettled);
      const roundsMs = Date.now() - roundsStartedAt;

      const archive = readArchive(database);
      expect(archive.integrity).toBe('ok');
      expect([...archive.fillerVersions]).toEqual([story.fillerVersion(step)]);
      const expected = story.changesUpTo(step);
      expect(compareArchive(expected, archive.events)).toEqual(NO_DIFFERENCES);
      const webhooks = compareWebhooks(expected, SUBSCRIPTIONS, receiver.received);
      expect(webhooks).toMatchObject({ missing: [], unexpected: [], underSeveralIds: [], wrong: [] });
      console.log(
        `durability crash test: ${CRASH_ROUNDS} kills of serve, ${interrupted} before a poll committed, ${step} vendor states, ` +
          `${archive.events.length} events, ${webhooks.distinctIds} webhooks (${webhooks.requests - webhooks.distinctIds} re-sent); ` +
          `${Math.round(roundsMs / CRASH_ROUNDS)} ms a round, the two restarts included (serve's spawn to first commit: ` +
          `${Math.round(commitTimesMs.reduce((a, b) => a + b, 0) / commitTimesMs.length)} ms)`,
      );
      // Some kill landed before a poll committed (startup, reading, or writing).
      if (CRASH_ROUNDS >= 2) expect(interrupted).toBeGreaterThan(0);
    },
    60_000 + CRASH_ROUNDS * 10_000,
  );

  it('lets only one of two processes on one database file poll at a time', async () => {
    const story = crashStory({ fillers: 50 });
    const database = join(tempDir(), 'archive.db');
    const env = { DATABASE_PATH: database, STATUS_URL: vendor.url, LOG_LEVEL: 'warn' };
    await vendor.setIncidents(story.state(0));
    await runCli(['migrate'], env);
    // A slow history keeps the first poll going while the second starts: the second is spawned
    // once the first is inside that read, and the read lasts longer than a CLI takes to start on
    // a loaded machine (a few seconds), within the poll's 10 s timeout.
    vendor.vendor.clearRequests();
    await vendor.fault({ target: 'v2/history', kind: 'slow', delayMs: 8000, times: 1 });
    const a = spawnCli(['poll', '--json'], env);
    const inSlowRead = () => vendor.vendor.requests().some((r) => r.fault === 'slow');
    for (const started = Date.now(); !inSlowRead(); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() - started > 20_000) throw new Error('the first poll never reached the history read');
    }
    const b = spawnCli(['poll', '--json'], env);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    await vendor.clearFaults();
    // poll --json prints POST /api/admin/poll's answer: `outcome` for a run, `error` for a skipped poll.
    const outcome = (stdout: string) => {
      const answer = JSON.parse(stdout);
      return answer.outcome ?? answer.error;
    };
    expect([outcome(ra.stdout), outcome(rb.stdout)].sort()).toEqual(['ok', 'poll_in_progress']);
    expect(compareArchive(story.changesUpTo(0), readArchive(database).events)).toEqual(NO_DIFFERENCES);
  }, 30_000);
});
