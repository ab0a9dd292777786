/**
 * Benchmark: syncing a group subscription from the simulated SCIM directory over loopback HTTP
 * into SQLite. The spec's largest group (15,000 members) read over pages of 1,000, and
 * a small group at the end of the same directory read one user at a time: time per sync, and SCIM
 * requests against the fewest the paging rules allow (one group read, then either every page up to
 * the last member or one GET per member, whichever is fewer).
 */
import { createScimClient } from '../../src/adapters/fetch-scim-client.ts';
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createGroupSync } from '../../src/app/group-sync.ts';
import { startSimulatedScim } from '../../src/sim/scim/server.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';
import { expectBench, silentLogger, type Goal, type SectionReport } from './harness.ts';
import { summarize } from './stats.ts';
import { heading, ms, ratio, table } from './table.ts';

export type GroupSyncOptions = {
  /** Users in the directory, and members of the big group (the first `bigGroup` users). */
  directoryUsers: number;
  bigGroup: number;
  /** Members of the small group: the directory's last users. */
  smallGroup: number;
  rounds: number;
};

const PAGE = 1000;

export async function benchGroupSync(options: GroupSyncOptions): Promise<SectionReport> {
  const sim = await startSimulatedScim({ host: '127.0.0.1', port: 0 });
  const archive = openTempArchive(tempDir('statuswatch-bench-scim-'));
  try {
    const control = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${sim.url}/_sim${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expectBench(res.ok, `the simulated directory refused ${method} ${path}: ${res.status}`);
      return (await res.json()) as Record<string, any>;
    };
    const seed = await control('POST', '/seed', { users: options.directoryUsers, groups: [{ displayName: 'Everyone on call', members: options.bigGroup }] });
    const small = await control('POST', '/groups', { displayName: 'Database on call', members: [] });
    const page = await (
      await fetch(`${sim.url}/scim/v2/Users?startIndex=${options.directoryUsers - options.smallGroup + 1}&count=${options.smallGroup}`, {
        headers: { Authorization: `Bearer ${sim.token}` },
      })
    ).json();
    await control('POST', `/groups/${small.id}/members`, { add: (page as { Resources: { id: string }[] }).Resources.map((u) => u.id) });

    const store = createSqliteGroupDirectoryStore(archive.connection);
    const clock = { now: () => Date.now() };
    for (const [id, groupId] of [
      ['sub_big', seed.groups[0].id as string],
      ['sub_small', small.id as string],
    ] as const) {
      await archive.store.createSubscription(storedSubscription(id, { channel: 'email', target: `scim-group:${groupId}` }, clock.now()));
      await store.linkGroup({ subscriptionId: id, groupId, groupName: id });
    }

    const cases = [
      {
        name: `${options.bigGroup.toLocaleString('en-US')} members of ${options.directoryUsers.toLocaleString('en-US')} users`,
        id: 'sub_big',
        members: options.bigGroup,
        minimum: 1 + Math.ceil(options.bigGroup / PAGE),
      },
      {
        name: `${options.smallGroup} members at the end of ${options.directoryUsers.toLocaleString('en-US')} users`,
        id: 'sub_small',
        members: options.smallGroup,
        minimum: 1 + Math.min(options.smallGroup, Math.ceil(options.directoryUsers / PAGE)),
      },
    ];
    const rows = [];
    const goals: Goal[] = [];
    for (const c of cases) {
      const first: number[] = [];
      const again: number[] = [];
      let requests = 0;
      let rowsWrittenAgain = 0;
      const rowsWritten = async () => (await archive.connection.all<{ n: number }>('SELECT total_changes() AS n', []))[0]!.n;
      for (let round = 0; round < options.rounds; round += 1) {
        // A fresh client and an empty list each round: the first sync writes every member; the second finds nothing changed.
        const directory = createScimClient({ baseUrl: sim.url, token: sim.token, clock });
        const sync = createGroupSync({ store, directory, clock, logger: silentLogger, syncSeconds: 300 });
        await archive.connection.runAtomically([{ sql: 'DELETE FROM scim_members WHERE subscription_id = ?', params: [c.id] }]);
        let started = performance.now();
        const report = await sync.syncGroup(c.id);
        first.push(performance.now() - started);
        expectBench(report.outcome === 'ok' && report.members === c.members, `sync of ${c.id}: ${report.outcome}, ${report.members} members, ${report.error}`);
        requests = report.requests;
        const writtenBefore = await rowsWritten();
        started = performance.now();
        const second = await sync.syncGroup(c.id);
        again.push(performance.now() - started);
        rowsWrittenAgain = (await rowsWritten()) - writtenBefore;
        expectBench(second.changes.length === 0 && second.requests === report.requests, `a resync of ${c.id} found ${second.changes.length} changes`);
        expectBench(
          directory.stats().pacedMs === 0 && directory.stats().retryAfterMs === 0,
          'the sync waited on rate limits: the figures would time the waits',
        );
      }
      const a = summarize(first);
      const b = summarize(again);
      rows.push([c.name, a.n, ms(a.p50), ms(a.p95), ms(b.p50), rowsWrittenAgain, requests, c.minimum, ratio(requests / c.minimum)]);
      // A sync that finds nothing changed writes the link's row (and the audit list's trim), not the members.
      goals.push({
        name: `group resync writes, ${c.name}`,
        met: rowsWrittenAgain <= 2,
        detail: `${rowsWrittenAgain} rows written by a sync that found no change (goal: at most 2)`,
      });
      goals.push({
        name: `group sync requests, ${c.name}`,
        met: requests <= c.minimum + 1,
        detail: `${requests} SCIM requests against a minimum of ${c.minimum} (goal: at most one more)`,
      });
    }
    const text = [
      heading('Group sync from the SCIM directory'),
      `${options.rounds} rounds; the simulated directory over loopback HTTP, its rate limits on; SQLite file; "first" writes every member, "again" finds no change`,
      table(['group', 'n', 'first p50 ms', 'first p95 ms', 'again p50 ms', 'again rows written', 'requests', 'minimum', 'requests / minimum'], rows),
    ].join('\n');
    return { text, goals };
  } finally {
    await sim.close();
    archive.remove();
  }
}
