/**
 * SIGKILL of the service at random points while incidents move from creation through notes, an
 * edit and resolution, with a PagerDuty and an Opsgenie subscription: in the end each incident
 * has one PagerDuty alert under one dedup_key, resolved exactly once and never reopened, and one
 * Opsgenie alert under one alias, closed exactly once. Re-sends after a kill land on the same
 * alert (the tools' own keys make them repeats), never on a second one.
 * CRASH_ROUNDS=20 npx vitest run --project crash test/integration/oncall-crash.test.ts runs it longer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOnCallReceiver, startOnCallReceiver } from '../../src/sim/oncall/receiver.ts';
import { runCli } from '../helpers/cli.ts';
import { countOkPolls } from '../helpers/crash-oracle.ts';
import { crashStory } from '../helpers/crash-story.ts';
import { serveEnv, serveUntilSettled, spawnAndKill, spawnServe } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const CRASH_ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
/** Steps of one story incident: created, note added, note edited, retitled, resolved, its last note edited after the end. */
const STEPS_PER_INCIDENT = 6;
const ROUTING_KEY = 'R0UTINGKEY0123456789abcdefABCDEF';
const API_KEY = '0b5c6a3e-1f2d-4c8b-9a7e-5d4c3b2a1f00';
const PUBLIC_URL = 'https://status.example.test';
const keyOf = (incidentId: string | number) => `statuswatch/status.example.test/incident/${incidentId}`;

describe('on-call durability', () => {
  let vendor: TestVendor;
  let tools: RunningOnCallReceiver;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    // Answers held back a little: widens the window a kill can land in.
    tools = await startOnCallReceiver({ answerDelayMs: () => Math.random() * 40 });
    tools.addPagerDutyKey(ROUTING_KEY);
    tools.addOpsgenieKey(API_KEY);
  });
  afterAll(async () => {
    await tools.close();
    await vendor.close();
  });

  it(
    `keeps one PagerDuty and one Opsgenie alert per incident, each closed once, across ${CRASH_ROUNDS} SIGKILLs`,
    async () => {
      const story = crashStory({ fillers: 0 });
      const database = join(tempDir(), 'archive.db');
      const env = serveEnv(database, vendor.url, {
        POLL_ON_START: 'true',
        POLL_SCHEDULE: '* * * * * *',
        PUBLIC_URL,
        PAGERDUTY_EVENTS_URL: tools.pagerDutyUrl,
        OPSGENIE_API_URL: tools.opsgenieUrl,
      });
      const setup = await spawnServe({ ...env, POLL_ON_START: 'false', POLL_SCHEDULE: '0 0 1 1 *' }).started;
      try {
        expect((await setup.admin('POST', '/api/subscriptions', { channel: 'pagerduty', routing_key: ROUTING_KEY })).ok).toBe(true);
        expect((await setup.admin('POST', '/api/subscriptions', { channel: 'opsgenie', api_key: API_KEY })).ok).toBe(true);
      } finally {
        await setup.kill('SIGTERM');
      }
      let step = 0;
      await vendor.setIncidents(story.state(step));
      expect((await runCli(['poll'], env)).code).toBe(0);
      await vendor.setIncidents(story.state(++step));

      let killedWhileSending = 0;
      let spawnToCommitMs = 1000;
      for (let round = 1; round <= CRASH_ROUNDS; round++) {
        const before = tools.calls().length;
        const outcome = await spawnAndKill(
          env,
          round % 3 === 0
            ? { beforeCommit: { withinMs: 0.8 * spawnToCommitMs } }
            : {
                afterCommit: {
                  wait: async () => {
                    const deadline = Date.now() + 5_000;
                    while (tools.calls().length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
                    await new Promise((r) => setTimeout(r, Math.random() * 30));
                  },
                },
              },
        );
        spawnToCommitMs = outcome.spawnToCommitMs ?? spawnToCommitMs;
        if (tools.calls().length > before) killedWhileSending++;
        if (outcome.committed) await vendor.setIncidents(story.state(++step));
      }
      // Whatever the kills left, the first incident is told to its end: resolved and amended after.
      while (step < STEPS_PER_INCIDENT) {
        const ok = countOkPolls(database);
        await serveUntilSettled(env, () => countOkPolls(database) > ok);
        await vendor.setIncidents(story.state(++step));
      }
      const okBefore = countOkPolls(database);
      await serveUntilSettled(env, () => countOkPolls(database) > okBefore);

      const incidents = story.state(step).filter((i) => Number(i.id) >= 9000);
      const pdCalls = tools
        .calls()
        .filter((c) => c.tool === 'pagerduty')
        .map((c) => JSON.parse(c.body) as { event_action: string; dedup_key: string });
      const ogCalls = tools.calls().filter((c) => c.tool === 'opsgenie');
      for (const incident of incidents) {
        const key = keyOf(incident.id);
        const over = incident.status === 'resolved';
        // An incident whose creation a kill held back until after it ended pages nobody: a tool
        // gets no alert for it at all (never one opened late). Any other gets exactly one.
        const pd = tools.pagerDutyAlerts().find((a) => a.dedupKey === key);
        if (pd !== undefined || !over) expect(pd).toMatchObject({ openedTimes: 1, resolves: over ? 1 : 0, status: over ? 'resolved' : 'triggered' });
        const og = tools.opsgenieAlerts().find((a) => a.alias === key);
        if (og !== undefined || !over) expect(og).toMatchObject({ openedTimes: 1, closes: over ? 1 : 0, status: over ? 'closed' : 'open' });
        // Nothing after the resolve but its own repeats: no trigger reopened the alert.
        const mine = pdCalls.filter((e) => e.dedup_key === key);
        const firstResolve = mine.findIndex((e) => e.event_action === 'resolve');
        if (over) expect(mine.slice(firstResolve).every((e) => e.event_action === 'resolve')).toBe(true);
        const ogMine = ogCalls.filter((c) => c.path.includes(encodeURIComponent(key)) || JSON.parse(c.body).alias === key);
        const firstClose = ogMine.findIndex((c) => c.path.includes('/close'));
        if (over) expect(ogMine.slice(firstClose).some((c) => c.path === '/opsgenie/v2/alerts')).toBe(false);
      }
      // One dedup_key per incident: no key but the incidents' own.
      const keys = new Set(incidents.map((i) => keyOf(i.id)));
      expect([...new Set(pdCalls.map((e) => e.dedup_key))].filter((k) => !keys.has(k))).toEqual([]);
      console.log(
        `on-call crash test: ${CRASH_ROUNDS} kills (${killedWhileSending} while sending), ${step} vendor states, ` +
          `${pdCalls.length} PagerDuty events and ${ogCalls.length} Opsgenie calls for ${incidents.length} incident(s)`,
      );
      expect(killedWhileSending).toBeGreaterThan(0);
    },
    60_000 + CRASH_ROUNDS * 15_000,
  );
});
