/**
 * The workspace app's messages across SIGKILLs: `statuswatch serve` is killed again and
 * again while it posts, edits and replies for one incident going from creation through a note, an
 * edit and resolution. Each subscribed conversation ends with exactly one root message showing the
 * final state and a thread holding each change once: the expectation comes from the story, not
 * from our database. APP_CRASH_ROUNDS=10 runs more kills per step.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appStory } from '../fixtures/app-story.ts';
import { readable, startAppWorld, subscribeAppByServe, type AppWorld } from '../helpers/app-channel.ts';
import { runCli } from '../helpers/cli.ts';
import { serveEnv, serveUntilSettled, spawnAndKill } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const ROUNDS_PER_STEP = Number(process.env.APP_CRASH_ROUNDS ?? 2);

const { steps: STEPS, replies: REPLIES, finalTitle, finalNote } = appStory(1700);

describe('app messages across SIGKILLs', () => {
  let vendor: TestVendor;
  let world: AppWorld;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    world = await startAppWorld(['status', 'ops']);
  });
  afterAll(async () => {
    await world.close();
    await vendor.close();
  });

  const chatCalls = async () => ((await world.control('GET', '/calls')).body.calls as { method: string }[]).filter((c) => c.method.startsWith('chat.')).length;

  it(`posts one root per conversation and each change once, with ${ROUNDS_PER_STEP} kills per step`, async () => {
    const database = join(tempDir(), 'archive.db');
    const env = serveEnv(database, vendor.url, { ...world.env, POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *' });
    await vendor.setIncidents([]);
    expect((await runCli(['poll'], env)).code).toBe(0);

    await subscribeAppByServe(env, world, ['status', 'ops']);

    let killedWhileSending = 0;
    for (const incident of STEPS) {
      await vendor.setIncidents([incident]);
      for (let round = 0; round < ROUNDS_PER_STEP; round++) {
        const before = await chatCalls();
        // Once the poll has committed, at the first chat call of this round or a little after.
        await spawnAndKill(env, {
          afterCommit: {
            wait: async () => {
              const deadline = Date.now() + 3_000;
              while ((await chatCalls()) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
              await new Promise((r) => setTimeout(r, Math.random() * 40));
            },
          },
        });
        if ((await chatCalls()) > before) killedWhileSending++;
      }
    }
    await serveUntilSettled(env, () => true, 60_000);

    for (const name of ['status', 'ops']) {
      const view = await world.read(world.channels[name]!);
      expect(view.roots, name).toHaveLength(1);
      const root = view.roots[0]!;
      expect(readable(root)).toContain(`Resolved: ${finalTitle}`);
      expect(readable(root)).toContain(finalNote);
      expect(root.replies.map(readable), name).toHaveLength(REPLIES.length);
      for (const [i, pattern] of REPLIES.entries()) expect(readable(root.replies[i]!)).toMatch(pattern);
    }
    // The kills did land while messages were going out, not only between steps.
    expect(killedWhileSending).toBeGreaterThan(0);
  }, 240_000);
});
