/**
 * The group sync against the simulated SCIM directory over HTTP and a real SQLite file: faults in
 * the middle of a sync (500s, a 429 burst beyond patience, a missing page, a timeout, a malformed
 * answer) keep the last good member list and remove nobody; the read plan makes few requests.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { createScimClient } from '../../src/adapters/fetch-scim-client.ts';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.ts';
import { createGroupDeletedNotice } from '../../src/app/admin-notice.ts';
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import { createGroupSync, type GroupSync } from '../../src/app/group-sync.ts';
import type { Logger } from '../../src/core/ports.ts';
import type { GroupDirectoryStore, ScimDirectory } from '../../src/core/ports/scim-directory.ts';
import type { RunningSimulatedScim } from '../../src/sim/scim/server.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { startSmtp } from '../helpers/smtp.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { control, startScim } from '../sim/scim-helpers.ts';
import { logLines } from '../helpers/log-lines.ts';

const SUB = 'sub_ops';
const archives: TempArchive[] = [];
afterEach(() => {
  for (const a of archives.splice(0)) a.remove();
});

type Setup = {
  sim: RunningSimulatedScim;
  store: GroupDirectoryStore;
  sync: GroupSync;
  directory: ScimDirectory;
  logger: Logger;
  groupId: string;
  seed: any;
  logs: string[];
  requests: () => number;
  now: () => number;
  advance: (ms: number) => void;
};

type SetupOptions = { timeoutMs?: number; logLimit?: number; syncDeadlineMs?: number; syncMaxBytes?: number; syncsOnDemand?: boolean };

async function setup(users: number, members: number, options: SetupOptions = {}): Promise<Setup> {
  let nowMs = Date.UTC(2026, 10, 23, 9, 0, 0);
  const clock = { now: () => nowMs };
  const sim = await startScim({ clock: clock.now });
  const seed = await control(sim, 'POST', '/seed', { users, groups: [{ displayName: 'Ops', members }] });
  const archive = openTempArchive();
  archives.push(archive);
  const store = createSqliteGroupDirectoryStore(archive.connection);
  await archive.store.createSubscription(storedSubscription(SUB, { channel: 'email', target: `scim-group:${seed.groups[0].id}` }, nowMs));
  await store.linkGroup({ subscriptionId: SUB, groupId: seed.groups[0].id, groupName: 'Ops' });
  const directory = createScimClient({
    baseUrl: sim.url,
    token: sim.token,
    clock,
    timeoutMs: options.timeoutMs,
    // Waits move the shared clock: the sim's buckets refill as they would, and the test does not sleep.
    sleep: async (ms) => {
      nowMs += ms;
    },
  });
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const sync = createGroupSync({
    store,
    directory,
    clock,
    logger,
    syncSeconds: 300,
    logLimit: options.logLimit,
    syncDeadlineMs: options.syncDeadlineMs,
    syncMaxBytes: options.syncMaxBytes,
    syncsOnDemand: options.syncsOnDemand,
  });
  return {
    sim,
    store,
    sync,
    directory,
    logger,
    groupId: seed.groups[0].id,
    seed,
    logs,
    requests: () => directory.stats().requests,
    now: clock.now,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

const memberIds = async (store: GroupDirectoryStore) => (await store.allMembers(SUB)).map((m) => m.id);

describe('group sync', () => {
  it('reads a 2,500-member group over short pages in as few requests as the paging allows', async () => {
    const s = await setup(2600, 2500);
    await control(s.sim, 'PUT', '/short-pages', { users: 700 });
    const report = await s.sync.syncGroup(SUB);
    expect(report).toMatchObject({ outcome: 'ok', members: 2500 });
    expect(report.changes).toHaveLength(2500);
    // One group read, then pages of 700 until every member is found: 2,500 / 700 → 4 pages.
    expect(report.requests).toBe(1 + 4);
    expect(await s.store.groupLink(SUB)).toMatchObject({ outcome: 'ok', memberCount: 2500, version: 'v2' });
  });

  it('reads a small group in a big directory one user at a time', async () => {
    const s = await setup(5000, 3);
    const report = await s.sync.syncGroup(SUB);
    // The first page finds all three (they are the first users); otherwise GETs would have won over four more pages.
    expect(report).toMatchObject({ outcome: 'ok', members: 3, requests: 2 });
    await control(s.sim, 'POST', `/groups/${s.groupId}/members`, { add: [s.seed.lastUserId], remove: [s.seed.firstUserId] });
    const again = await s.sync.syncGroup(SUB);
    // Group, first page (two members and the one who left), then one GET for the member on the last page.
    expect(again.requests).toBe(3);
    expect(again.changes.map((c) => c.change).sort()).toEqual(['added', 'removed: left group']);
  });

  for (const fault of [
    { name: '500s on a page', spec: { target: 'users.list', kind: 'status', status: 500, times: 2, startIndex: 1001 }, code: 'internal_error' },
    {
      name: 'a 429 burst beyond patience',
      spec: { target: 'users.list', kind: 'rate-limit', retryAfterSeconds: 600, startIndex: 1001 },
      code: 'too_many_requests',
    },
    { name: 'a missing page', spec: { target: 'users.list', kind: 'missing-page', startIndex: 1001 }, code: 'missing_page' },
    { name: 'a group read that never answers', spec: { target: 'groups.get', kind: 'timeout', times: 1 }, code: 'timeout' },
  ] as const) {
    it(`keeps the last good member list through ${fault.name}, and says so`, async () => {
      // The read that never answers ends at the client's timeout: short, but far above what a real
      // 1,000-user page takes on a loaded machine (300 ms was not).
      const s = await setup(2600, 2500, fault.code === 'timeout' ? { timeoutMs: 2_000 } : {});
      expect((await s.sync.syncGroup(SUB)).outcome).toBe('ok');
      const before = await memberIds(s.store);
      // Between syncs, people leave and are deactivated: a failed read must not be taken for that.
      await control(s.sim, 'POST', `/groups/${s.groupId}/members`, { remove: before.slice(0, 10) });
      await control(s.sim, 'POST', `/users/${before[20]}/deactivate`);
      await control(s.sim, 'POST', '/faults', fault.spec);
      const report = await s.sync.syncGroup(SUB);
      expect(report.outcome).toBe('failed');
      expect(report.error).toContain(fault.code);
      expect(await memberIds(s.store)).toEqual(before);
      const link = await s.store.groupLink(SUB);
      expect(link).toMatchObject({ outcome: 'failed', memberCount: 2500 });
      expect(link?.error).toContain(fault.code);
      const [last] = await s.store.log(SUB, null, 1);
      expect(last).toMatchObject({ change: 'sync failed' });
      expect(s.logs.some((l) => l.includes('the last good member list is kept') && l.includes(fault.code))).toBe(true);
      // Once the directory answers again, the changes land.
      await control(s.sim, 'DELETE', '/faults');
      const healed = await s.sync.syncGroup(SUB);
      expect(healed.outcome).toBe('ok');
      expect(healed.changes.filter((c) => c.change === 'removed: left group')).toHaveLength(10);
      expect(healed.changes.filter((c) => c.change === 'removed: deactivated')).toHaveLength(1);
      expect((await memberIds(s.store)).length).toBe(2489);
    });
  }

  it('stops reading user pages that never end at the page cap, and keeps the last good list', async () => {
    // The cap, not the sync's deadline, is what this tells: a deadline far beyond 200 reads however
    // loaded the machine, and pages of ten (200 full pages took over a minute under load).
    const s = await setup(20, 7, { syncDeadlineMs: 10 * 60_000 });
    expect((await s.sync.syncGroup(SUB)).outcome).toBe('ok');
    await control(s.sim, 'PUT', '/rate-limits', { enabled: false });
    await control(s.sim, 'PUT', '/short-pages', { users: 10 });
    await control(s.sim, 'POST', '/faults', { target: 'users.list', kind: 'endless' });
    const report = await s.sync.syncGroup(SUB);
    expect(report).toMatchObject({ outcome: 'failed', members: 7 });
    expect(report.error).toContain('too_many_pages');
    // The group, then 200 pages: the cap, not the directory, ends the read.
    expect(report.requests).toBe(1 + 200);
    expect(await memberIds(s.store)).toHaveLength(7);
  });

  it('ends a sync whose reads answer slowly at its deadline, waits and all, and keeps the last good list', async () => {
    const s = await setup(20, 1, { syncDeadlineMs: 1_500 });
    expect((await s.sync.syncGroup(SUB)).outcome).toBe('ok');
    // Each GET of a user takes 9 s: without a deadline a sync of seven of them took 63 s.
    await control(s.sim, 'POST', '/faults', { target: 'users.get', kind: 'delay', delayMs: 9_000 });
    const startedMs = Date.now();
    const report = await s.sync.syncGroup(SUB);
    expect(Date.now() - startedMs).toBeLessThan(4_000);
    expect(report).toMatchObject({ outcome: 'failed', members: 1 });
    expect(report.error).toContain('deadline');
    expect(await memberIds(s.store)).toHaveLength(1);
  });

  it('ends a sync that stops being read as the process stops', async () => {
    const s = await setup(20, 1);
    const stop = new AbortController();
    const sync = createGroupSync({ store: s.store, directory: s.directory, clock: { now: Date.now }, logger: s.logger, syncSeconds: 300, signal: stop.signal });
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'timeout' });
    const running = sync.syncGroup(SUB);
    setTimeout(() => stop.abort(), 200);
    const report = await running;
    expect(report).toMatchObject({ outcome: 'failed' });
    expect(report.error).toContain('stopped');
  });

  it('reads at most its bytes in all, however the directory pages', async () => {
    const s = await setup(2600, 2500, { syncMaxBytes: 2 * 1024 * 1024 });
    const report = await s.sync.syncGroup(SUB);
    expect(report).toMatchObject({ outcome: 'failed' });
    expect(report.error).toContain('over_budget');
  });

  it('skips a malformed or oversize record and puts it on the audit list with the reason; the rest of the sync lands', async () => {
    const s = await setup(10, 5);
    await s.sync.syncGroup(SUB);
    const ids = await memberIds(s.store);
    const record = (id: string, fields: Record<string, unknown> = {}) => ({
      id,
      userName: id.toLowerCase(),
      displayName: `User ${id}`,
      active: true,
      emails: [{ value: `${id.toLowerCase()}@example.com`, primary: true }],
      ...fields,
    });
    const page = {
      totalResults: 5,
      startIndex: 1,
      Resources: [
        record(ids[0]!),
        record(ids[1]!, { displayName: 'x'.repeat(10_000) }),
        record(ids[2]!, { emails: [{ value: `${'a'.repeat(318)}@example.com`, primary: true }] }),
        record(ids[3]!, { active: 'yes' }),
        // Deactivated meanwhile: the sync still sees it, though three records around it are broken.
        record(ids[4]!, { active: false }),
      ],
    };
    await control(s.sim, 'POST', '/faults', { target: 'users.list', kind: 'body', body: JSON.stringify(page) });
    const report = await s.sync.syncGroup(SUB);
    expect(report).toMatchObject({ outcome: 'ok', members: 2 });
    expect(report.changes).toEqual([expect.objectContaining({ userId: ids[4], change: 'removed: deactivated' })]);
    const log = await s.store.log(SUB, null, 3);
    expect(log.map((e) => [e.userId, e.change, e.detail]).sort()).toEqual(
      [
        [ids[1], 'record skipped', 'displayName: longer than 400 characters'],
        [ids[2], 'record skipped', 'emails.0.value: longer than 254 characters'],
        [ids[3], 'record skipped', expect.stringMatching(/^active: /)],
      ].sort(),
    );
    // Still broken at the next sync: said once, not once a sync.
    const again = await s.sync.syncGroup(SUB);
    expect(again).toMatchObject({ outcome: 'ok', changes: [] });
    expect((await s.store.log(SUB, null, 3)).map((e) => e.id)).toEqual(log.map((e) => e.id));
    // Mended: they are members again.
    await control(s.sim, 'DELETE', '/faults');
    expect((await s.sync.syncGroup(SUB)).changes.map((c) => [c.userId, c.change])).toEqual([
      [ids[1], 'added'],
      [ids[2], 'added'],
      [ids[3], 'added'],
      [ids[4], 'added'],
    ]);
  });

  it('skips a member whose own record is oversize, and a member reference that is not an id', async () => {
    const s = await setup(10, 1);
    await control(s.sim, 'POST', '/faults', {
      target: 'groups.get',
      kind: 'body',
      body: JSON.stringify({ id: s.groupId, displayName: 'Ops', members: [{ value: s.seed.firstUserId }, { value: 'U'.repeat(500) }, { value: 42 }] }),
      times: 2,
    });
    await control(s.sim, 'POST', '/faults', {
      target: 'users.get',
      kind: 'body',
      body: JSON.stringify({ id: s.seed.firstUserId, userName: 'u1', displayName: 'd'.repeat(10_000), active: true, emails: [] }),
      times: 2,
    });
    const report = await s.sync.syncGroup(SUB);
    expect(report).toMatchObject({ outcome: 'ok', members: 0 });
    const entries = async () => (await s.store.log(SUB, null, 10)).map((e) => [e.userId, e.change, e.detail]);
    const logged = await entries();
    expect(logged).toHaveLength(3);
    expect(logged).toContainEqual([s.seed.firstUserId, 'record skipped', 'displayName: longer than 400 characters']);
    expect(logged).toContainEqual([null, 'record skipped', 'group member value: longer than 100 characters']);
    // The same broken records at the next sync are not logged again, the two with no id included.
    expect(await s.sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok' });
    expect(await entries()).toEqual(logged);
  });

  it('takes a group an RFC 7644 directory answers 404 for, twice, as deleted: nobody left to mail, the admin told once', async () => {
    const s = await setup(10, 4);
    const smtp = await startSmtp();
    const mailer = createSmtpMailer({ smtpUrl: smtp.url, from: 'status@example.test' });
    try {
      const announce = createGroupDeletedNotice({ mailer, adminEmail: 'admin@example.test', publicUrl: 'https://status.example.test', logger: s.logger });
      const sync = createGroupSync({
        store: s.store,
        directory: s.directory,
        clock: { now: s.now },
        logger: s.logger,
        syncSeconds: 300,
        announceGroupDeleted: announce,
      });
      expect(await sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok', members: 4 });
      await control(s.sim, 'PUT', '/rfc', { trailingSlash404: true, plainErrors: true });
      await control(s.sim, 'DELETE', `/groups/${s.groupId}`);
      const gone = await sync.syncGroup(SUB);
      expect(gone).toMatchObject({ outcome: 'ok', groupDeleted: true, members: 0 });
      expect(gone.changes.map((c) => c.change)).toEqual(Array(4).fill('removed: group deleted'));
      expect(await s.store.groupLink(SUB)).toMatchObject({ groupDeleted: true, memberCount: 0 });
      expect(await s.store.allMembers(SUB)).toEqual([]);
      await sync.syncGroup(SUB);
      await vi.waitFor(() => expect(smtp.received).toHaveLength(1));
      expect(smtp.received[0]!.subject).toBe('[statuswatch] Directory group deleted: Ops');
      expect(smtp.received[0]!.text).toContain(`https://status.example.test/admin/directory/${SUB}`);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it('keeps the whole text of a failure on the audit list, not its first word', async () => {
    const s = await setup(10, 2);
    await s.sync.syncGroup(SUB);
    await control(s.sim, 'PUT', '/rfc', { plainErrors: true });
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'status', status: 400 });
    expect(await s.sync.syncGroup(SUB)).toMatchObject({ outcome: 'failed' });
    const [entry] = await s.store.log(SUB, null, 1);
    expect(entry).toMatchObject({ change: 'sync failed' });
    expect(entry?.detail).toContain('http_400 (the directory answered HTTP 400): The service met a condition it did not expect (HTTP 400)');
    expect(await memberIds(s.store)).toHaveLength(2);
  });

  it('refuses a malformed answer without touching the list', async () => {
    const s = await setup(10, 5);
    await s.sync.syncGroup(SUB);
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'body', body: '{"id":"G1","members":"all"}' });
    const report = await s.sync.syncGroup(SUB);
    expect(report.outcome).toBe('failed');
    expect(report.error).toContain('malformed');
    expect(await memberIds(s.store)).toHaveLength(5);
  });

  it('keeps the audit list within its bound', async () => {
    const s = await setup(50, 40, { logLimit: 25 });
    await s.sync.syncGroup(SUB);
    expect(await s.store.log(SUB, null, 1000)).toHaveLength(25);
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'status', status: 500 });
    for (let i = 0; i < 30; i += 1) await s.sync.syncGroup(SUB);
    const log = await s.store.log(SUB, null, 1000);
    expect(log).toHaveLength(25);
    expect(log.every((e) => e.change === 'sync failed')).toBe(true);
  });

  it('resolves a group by id, or by its exact name when the text is refused as an id; a failing directory is a 502', async () => {
    const s = await setup(5, 2);
    expect((await s.sync.resolveGroup(s.groupId)).displayName).toBe('Ops');
    expect((await s.sync.resolveGroup('Ops')).id).toBe(s.groupId);
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'status', status: 400, times: 1 });
    expect((await s.sync.resolveGroup('Ops')).id).toBe(s.groupId);
    await expect(s.sync.resolveGroup('Nobody')).rejects.toMatchObject({ status: 404, code: 'group_not_found' });
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'status', status: 500, times: 2 });
    await expect(s.sync.resolveGroup('Ops')).rejects.toMatchObject({ status: 502, code: 'directory_unavailable' });
  });

  it('resolves a group by name past group records the directory sent malformed: logs them, bounded, and names them in a miss', async () => {
    const s = await setup(5, 2);
    const res = await fetch(`${s.sim.url}/scim/v2/Groups/?startIndex=1&count=1000`, { headers: { Authorization: `Bearer ${s.sim.token}` } });
    const list = await res.json();
    // Twelve broken groups before Ops: more than a log line names.
    const broken = Array.from({ length: 12 }, (_, i) => ({ id: `G-broken-${i}`, displayName: i }));
    list.Resources = [...broken, ...list.Resources];
    list.totalResults = list.Resources.length;
    await control(s.sim, 'POST', '/faults', { target: 'groups.list', kind: 'body', body: JSON.stringify(list) });

    expect((await s.sync.resolveGroup('Ops')).id).toBe(s.groupId);
    const logged = logLines(s.logs, 'skipped malformed records');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'warn', list: 'SCIM groups', skipped: 12 });
    expect(logged[0].records).toHaveLength(10);
    expect(logged[0].records[0]).toEqual({ id: 'G-broken-0', reason: 'displayName: Invalid input: expected string, received number' });

    const miss = await s.sync.resolveGroup('Nobody').catch((error: unknown) => error);
    expect(miss).toMatchObject({ status: 404, code: 'group_not_found' });
    const reason = 'displayName: Invalid input: expected string, received number';
    expect((miss as Error).message).toBe(
      `group_not_found: the directory has no group with the id or display name "Nobody"; its groups: "Ops"; 12 group records not of the spec's shape skipped: ` +
        `"G-broken-0" (${reason}), "G-broken-1" (${reason}), "G-broken-2" (${reason}) and 9 more`,
    );
  });

  it('holds an alert while its stale list syncs in the background, and lets it go once a sync ended after it', async () => {
    const s = await setup(10, 3);
    const alertAt = s.now();
    // Never read: the alert waits, and the sync has begun without it.
    expect(await s.sync.beforeAlert(SUB, alertAt)).toEqual({ kind: 'wait', untilMs: alertAt + 2_000 });
    expect(await s.sync.syncGroup(SUB)).toMatchObject({ outcome: 'ok', members: 3, requests: 2 });
    expect(s.requests()).toBe(2);
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'ready' });
    expect(await s.sync.syncDue()).toEqual([]);
  });

  it('lets an alert go with the last good list once a hanging sync has had its deadline', async () => {
    const s = await setup(10, 3, { syncDeadlineMs: 1_000 });
    await s.sync.syncGroup(SUB);
    s.advance(301_000);
    await control(s.sim, 'POST', '/faults', { target: 'groups.get', kind: 'timeout' });
    const alertAt = s.now();
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'wait' });
    // The directory holds the sync; the alert is not held past the sync's deadline and a look.
    s.advance(3_000);
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'ready', link: { memberCount: 3 } });
    // The hanging sync itself ends at its deadline, as failed, the last good list kept.
    expect(await s.sync.syncGroup(SUB)).toMatchObject({ outcome: 'failed', error: expect.stringContaining('deadline') });
    expect(await s.store.groupLink(SUB)).toMatchObject({ memberCount: 3 });
  });

  it('leaves the sync to the scheduled round where alerts may not start one, and waits a round for it', async () => {
    const s = await setup(10, 3, { syncsOnDemand: false, syncDeadlineMs: 1_000 });
    const alertAt = s.now();
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'wait' });
    expect((await control(s.sim, 'GET', '/counters'))['groups.get']).toMatchObject({ requests: 0 });
    s.advance(30_000);
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'wait' });
    expect(await s.sync.syncDue()).toMatchObject([{ outcome: 'ok', members: 3 }]);
    expect(await s.sync.beforeAlert(SUB, alertAt)).toMatchObject({ kind: 'ready' });
  });
});
