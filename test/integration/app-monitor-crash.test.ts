/**
 * The workspace app's monitor messages across SIGKILLs: `statuswatch serve` is killed after the vendor
 * took its `monitor.blind` post and before the answer came (the simulated Web API holds it back),
 * and again for `monitor.recovered`; the restarted service finishes both deliveries. The
 * conversation ends with exactly one message of each.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readable, startAppWorld, subscribeAppByServe, type AppWorld } from '../helpers/app-channel.ts';
import { runCli } from '../helpers/cli.ts';
import { serveEnv, serveUntilSettled, spawnServe } from '../helpers/serve-process.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';
import { tempDir } from '../helpers/temp-archive.ts';

const HOUR_MS = 60 * 60_000;
/** A killed process's claim on its delivery lasts the deliverer's lease (60 s): the next one waits it out. */
const FIRST_POST_WAIT_MS = 90_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('app monitor messages across SIGKILLs', () => {
  let vendor: TestVendor;
  let world: AppWorld;
  beforeAll(async () => {
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    world = await startAppWorld(['status']);
  });
  afterAll(async () => {
    await world.close();
    await vendor.close();
  });

  const posts = async () => ((await world.control('GET', '/calls')).body.calls as { method: string }[]).filter((c) => c.method === 'chat.postMessage').length;

  /** Serves until a message is posted, whose answer never comes, then SIGKILLs: the post made, not recorded. */
  async function killAfterNextPost(env: Record<string, string>): Promise<boolean> {
    const before = await posts();
    const held = await world.control('POST', '/faults', { method: 'chat.postMessage', kind: 'timeout', after: true, times: 1 });
    expect(held.status).toBe(201);
    const serve = spawnServe(env);
    try {
      await serve.started;
      const deadline = Date.now() + FIRST_POST_WAIT_MS;
      while ((await posts()) === before && Date.now() < deadline) await sleep(5);
    } finally {
      await serve.kill('SIGKILL');
    }
    return (await posts()) > before;
  }

  it('posts one monitor.blind and one monitor.recovered message, killed between each post and its answer', async () => {
    const database = join(tempDir(), 'archive.db');
    const env = serveEnv(database, vendor.url, { ...world.env, POLL_ON_START: 'true', POLL_SCHEDULE: '* * * * * *' });
    await vendor.setIncidents([]);
    expect((await runCli(['poll'], env)).code).toBe(0);

    await subscribeAppByServe(env, world, ['status']);

    // The last good read was an hour ago: the next failing poll is past the staleness limit.
    const db = new Database(database);
    db.prepare('UPDATE poll_runs SET started_ms = started_ms - ?, finished_ms = finished_ms - ?').run(HOUR_MS, HOUR_MS);
    db.close();

    await vendor.fault({ target: '*', kind: 'status', status: 503 });
    expect(await killAfterNextPost(env)).toBe(true);
    await vendor.clearFaults();
    expect(await killAfterNextPost(env)).toBe(true);
    await serveUntilSettled(env, () => true, 120_000);

    const posted = (await world.read(world.channels.status!)).roots.map(readable);
    expect(posted).toHaveLength(2);
    expect(posted[0]).toMatch(/cannot read/i);
    expect(posted[1]).toMatch(/again/i);
  }, 300_000);
});
