/**
 * Discord's one message per incident across SIGKILLs: `statuswatch serve` is killed again and
 * again while it edits the incident's message through a note, an edit and the resolution, each
 * kill at or just after a call to the simulated Discord. The channel ends with the one message,
 * showing the final state: a resend after a kill edits the message whose id was recorded, never
 * posts a second. Teams, which has no key a resend could land on, gets every change at least
 * once. CHAT_CRASH_ROUNDS=10 runs more kills per step.
 *
 * The first post is not killed into: a webhook cannot list the channel, so a kill between
 * Discord's answer to the post and the record of its id cannot be told from no post at all
 * (senders/discord.ts says so).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatSims, type ChatSims } from '../../src/sim/chats/index.ts';
import { serveSimulator, type ServedSimulator } from '../../src/sim/serve-simulator.ts';
import { appStory } from '../fixtures/app-story.ts';
import { runCli } from '../helpers/cli.ts';
import { serveEnv, serveUntilSettled, spawnAndKill, spawnServe } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const ROUNDS_PER_STEP = Number(process.env.CHAT_CRASH_ROUNDS ?? 2);
const { steps: STEPS } = appStory(1800);

describe('Discord and Teams across SIGKILLs', () => {
  let vendor: TestVendor;
  let sims: ChatSims;
  let served: ServedSimulator;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    sims = createChatSims();
    served = await serveSimulator(sims, {});
  });
  afterAll(async () => {
    await served.close();
    await vendor.close();
  });

  it(`keeps one Discord message per incident, edited to the end, with ${ROUNDS_PER_STEP} kills per step`, async () => {
    const database = join(tempDir(), 'archive.db');
    const env = serveEnv(database, vendor.url, { POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *', PUBLIC_URL: 'https://status.example.test' });
    await vendor.setIncidents([]);
    expect((await runCli(['poll'], env)).code).toBe(0);
    const setup = await spawnServe({ ...env, POLL_ON_START: 'false', POLL_SCHEDULE: '0 0 1 1 *' }).started;
    try {
      expect((await setup.admin('POST', '/api/subscriptions', { channel: 'discord', url: `${served.url}/api/webhooks/5/crash-token` })).ok).toBe(true);
      expect((await setup.admin('POST', '/api/subscriptions', { channel: 'teams', url: `${served.url}/workflows/crash` })).ok).toBe(true);
    } finally {
      await setup.kill('SIGTERM');
    }

    // The first step posts the message, unkilled.
    await vendor.setIncidents([STEPS[0]!]);
    await serveUntilSettled(env, () => sims.discord.messages().length === 1, 60_000);
    const calls = () => sims.discord.calls().length + sims.teams.cards().length;
    let killedWhileSending = 0;
    for (const incident of STEPS.slice(1)) {
      await vendor.setIncidents([incident]);
      for (let round = 0; round < ROUNDS_PER_STEP; round++) {
        const before = calls();
        await spawnAndKill(env, {
          afterCommit: {
            wait: async () => {
              const deadline = Date.now() + 3_000;
              while (calls() === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
              await new Promise((r) => setTimeout(r, Math.random() * 40));
            },
          },
        });
        if (calls() > before) killedWhileSending++;
      }
    }
    await serveUntilSettled(env, () => true, 60_000);

    const messages = sims.discord.messages();
    expect(messages).toHaveLength(1);
    const [embed] = messages[0]!.embeds as { title: string; description: string }[];
    expect(embed!.title).toBe('Resolved: Messages are delayed for some workspaces \\<!channel\\>');
    expect(embed!.description).toBe('Messages are on time again.');
    expect(sims.discord.calls().filter((c) => c.startsWith('POST'))).toHaveLength(1);
    // Every change reached Teams, a kill's resend at most adding a card again.
    const cardTexts = sims.teams.cards().map((c) => JSON.stringify(c.card));
    for (const expected of ['Messages are delayed', 'minutes', 'Title changed from', 'Resolved'])
      expect(
        cardTexts.some((t) => t.includes(expected)),
        expected,
      ).toBe(true);
    expect(killedWhileSending).toBeGreaterThan(0);
  }, 240_000);
});
