/**
 * Benchmark: the store's side of one big group delivery sent a turn at a time, as a Worker sends
 * it (20 members a turn, its subrequest limit), on the SQLite file. Each turn reads
 * whether the delivery began and its next unsent receivers, then records them; the time of a turn
 * near the end against one near the start says whether a turn's cost grows with the delivery.
 * The mails themselves are the notifications section's subject, not this one's.
 */
import { createSqliteGroupDirectoryStore } from '../../src/adapters/sqlite-scim-groups.ts';
import type { DirectoryUser } from '../../src/core/scim-resources.ts';
import { storedSubscription } from '../fixtures/notification-builders.ts';
import { openTempArchive, tempDir } from '../helpers/temp-archive.ts';
import { expectBench, type Goal, type SectionReport } from './harness.ts';
import { summarize } from './stats.ts';
import { heading, ms, ratio, table } from './table.ts';

export type GroupMailOptions = {
  /** Group sizes, one delivery each. */
  members: readonly number[];
  /** Members a turn: what a Worker's attempt sends at most. */
  perTurn: number;
};

/** Turns at each end of a delivery that are compared: a tenth of them, at least one. */
const endTurns = (turns: number) => Math.max(1, Math.floor(turns / 10));

export async function benchGroupMail(options: GroupMailOptions): Promise<SectionReport> {
  const archive = openTempArchive(tempDir('statuswatch-bench-group-mail-'));
  try {
    const store = createSqliteGroupDirectoryStore(archive.connection);
    const rows = [];
    const goals: Goal[] = [];
    for (const size of options.members) {
      const id = `sub_${size}`;
      await archive.store.createSubscription(storedSubscription(id, { channel: 'email', target: `scim-group:G${size}` }, 0));
      await store.linkGroup({ subscriptionId: id, groupId: `G${size}`, groupName: id });
      const members: DirectoryUser[] = Array.from({ length: size }, (_, i) => ({
        id: `U${String(i).padStart(6, '0')}`,
        email: `member${i}@example.test`,
        active: true,
        timeZone: null,
        displayName: `Member ${i}`,
      }));
      const sync = { subscriptionId: id, revision: 0, at: 0, version: 'v2', groupName: id, groupDeleted: false, changes: [], skipped: [] } as const;
      await store.applySync({ ...sync, upserts: members, removedIds: [], memberCount: members.length }, 100);
      const key = `msg_bench_${size}`;
      const turns: number[] = [];
      let sent = 0;
      for (;;) {
        const started = performance.now();
        await store.hasMemberSends(key);
        const next = await store.unsentReceivers(id, key, options.perTurn + 1);
        const batch = next.slice(0, options.perTurn);
        if (batch.length === 0) break;
        await store.recordMemberSends(
          key,
          batch.map((m) => ({ userId: m.id, state: 'sent' as const })),
          1,
        );
        turns.push(performance.now() - started);
        sent += batch.length;
      }
      expectBench(sent === size && turns.length === Math.ceil(size / options.perTurn), `the ${size}-member delivery sent ${sent} in ${turns.length} turns`);
      const n = endTurns(turns.length);
      const first = summarize(turns.slice(0, n));
      const last = summarize(turns.slice(-n));
      const total = turns.reduce((a, b) => a + b, 0);
      rows.push([size.toLocaleString('en-US'), turns.length, ms(first.p50), ms(last.p50), ratio(last.p50 / first.p50), ms(total)]);
      goals.push({
        name: `group mail turn cost, ${size.toLocaleString('en-US')} members`,
        met: last.p50 <= 2 * first.p50,
        detail: `a turn near the end takes ${ms(last.p50)} ms against ${ms(first.p50)} ms near the start (goal: at most twice)`,
      });
    }
    const text = [
      heading('Group mail, a turn at a time'),
      `${options.perTurn} members a turn (a Worker's bound); SQLite file; per turn: whether the delivery began, its next unsent receivers, recording them; p50 of the first and last tenth of the turns`,
      table(['members', 'turns', 'first p50 ms', 'last p50 ms', 'last / first', 'all turns ms'], rows),
    ].join('\n');
    return { text, goals };
  } finally {
    archive.remove();
  }
}
