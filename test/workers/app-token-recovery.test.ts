/**
 * The workspace app's token on Workers: an invocation killed between claiming a
 * refresh and writing its answer leaves the claim in D1, and a Worker has no process start to
 * retry it. The next cron tick does: the vendor sees one refresh, and the installation stays
 * active with a usable token.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import worker, { type WorkerEnv } from '../../src/entry/worker.ts';
import { emptyD1 } from './d1-reset.ts';
import { installApp, startAppWorld, type AppWorld } from './harness/app-channel.ts';
import type {} from './provided-context.ts';

const testEnv = env as unknown as WorkerEnv;

describe('token refresh recovery on Workers', () => {
  let world: AppWorld;
  let appEnv: WorkerEnv;
  beforeEach(async () => {
    await emptyD1(testEnv.DB as never);
    world = await startAppWorld(['status']);
    appEnv = { ...testEnv, ...world.env };
  });
  afterEach(async () => {
    await world.close();
  });

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const ctx = createExecutionContext();
    const request = new Request(`https://status.example.test${path}`, {
      method,
      headers: { authorization: `Bearer ${String(testEnv.ADMIN_TOKEN)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const res = await worker.fetch(request as never, appEnv, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: await res.json() };
  }

  async function cron(): Promise<void> {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), appEnv, ctx);
    await waitOnExecutionContext(ctx);
  }

  const refreshes = async () => (await world.control('GET', `/workspaces/${world.teamId}`)).body.stats.refreshes as number;

  it('retries in the next cron tick a refresh that a killed invocation left claimed', async () => {
    const installation = await installApp(call, world);
    await cron();
    expect(await refreshes()).toBe(0);

    // Killed after the claim: the claim lapsed (5 s), and nobody uses the token meanwhile.
    await testEnv.DB.prepare('UPDATE app_installations SET refresh_claimed_ms = ? WHERE id = ?')
      .bind(Date.now() - 10_000, installation)
      .run();
    await cron();
    expect(await refreshes()).toBe(1);
    const row = await testEnv.DB.prepare('SELECT refresh_claimed_ms FROM app_installations WHERE id = ?').bind(installation).first();
    expect(row).toEqual({ refresh_claimed_ms: null });
    const listed = await call('GET', '/api/app/installations');
    expect(listed.body.installations).toMatchObject([{ id: installation, state: 'active', reason: null }]);
    const conversations = await call('GET', `/api/app/installations/${installation}/conversations`);
    expect(conversations.status, JSON.stringify(conversations.body)).toBe(200);

    // Nothing claimed: the next tick refreshes nothing.
    await cron();
    expect(await refreshes()).toBe(1);
  });
});
