/**
 * Group subscriptions on Workers: the cron invocation syncs a group from the simulated
 * SCIM directory (Node side, loopback) into D1, over the same fetch client as Node; a failed read
 * keeps the list.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { d1Connection, type D1DatabaseLike } from '../../src/adapters/d1-connection.ts';
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import worker, { type WorkerEnv } from '../../src/entry/worker.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { emptyD1 } from './d1-reset.ts';
import { control, startScim } from './harness/scim-helpers.ts';
import type {} from './provided-context.ts';

const testEnv = env as unknown as WorkerEnv;
const db = testEnv.DB as unknown as D1DatabaseLike;

async function cron(extra: Record<string, string>): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), { ...testEnv, ...extra } as WorkerEnv, ctx);
  await waitOnExecutionContext(ctx);
}

describe('group sync on Workers', () => {
  let sim: { url: string; token: string };
  beforeEach(async () => {
    await emptyD1(db);
    sim = await startScim();
  });

  it('syncs a stale group in the cron invocation, and keeps the list when the directory fails', async () => {
    const seed = await control(sim, 'POST', '/seed', { users: 1200, groups: [{ displayName: 'Ops', members: 1100 }] });
    const store = createSqliteStore(d1Connection(db));
    const groups = createSqliteGroupDirectoryStore(d1Connection(db));
    await store.createSubscription(storedSubscription('sub_group', { channel: 'email', target: `scim-group:${seed.groups[0].id}` }, Date.now()));
    await groups.linkGroup({ subscriptionId: 'sub_group', groupId: seed.groups[0].id, groupName: 'Ops' });

    // Without SCIM_TOKEN the cron syncs nothing.
    await cron({});
    expect((await groups.groupLink('sub_group'))?.outcome).toBe('never');

    const scim = { SCIM_URL: sim.url, SCIM_TOKEN: sim.token, SCIM_SYNC_SECONDS: '10' };
    await cron(scim);
    expect((await groups.groupLink('sub_group'))?.error).toBeNull();
    expect(await groups.groupLink('sub_group')).toMatchObject({ outcome: 'ok', memberCount: 1100, version: 'v2' });

    // Fresh: the next tick leaves it alone, however the directory changed.
    await control(sim, 'POST', `/groups/${seed.groups[0].id}/members`, { remove: [seed.firstUserId] });
    await cron(scim);
    expect((await groups.groupLink('sub_group'))?.memberCount).toBe(1100);

    // Stale, and the directory fails mid-list: the list stays, and says so.
    await testEnv.DB.prepare('UPDATE scim_groups SET synced_ms = synced_ms - 60000').run();
    await control(sim, 'POST', '/faults', { target: 'users.list', kind: 'missing-page', startIndex: 1001 });
    await cron(scim);
    expect(await groups.groupLink('sub_group')).toMatchObject({ outcome: 'failed', memberCount: 1100 });

    await control(sim, 'DELETE', '/faults');
    await testEnv.DB.prepare('UPDATE scim_groups SET synced_ms = synced_ms - 60000').run();
    await cron(scim);
    expect(await groups.groupLink('sub_group')).toMatchObject({ outcome: 'ok', memberCount: 1099 });
    expect((await groups.log('sub_group', null, 1))[0]).toMatchObject({ userId: seed.firstUserId, change: 'removed: left group' });
  });
});
