/**
 * The pruner on a real SQLite file: its batches and its one log line, no row left unreachable,
 * and the query plans that keep each prune a seek rather than a scan. What each prune removes and
 * keeps is the RetentionStore contract (test/contracts/retention.contract.ts), on Node and on D1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { PRUNE_SQL } from '../../src/adapters/sqlite-retention.ts';
import { createPruner } from '../../src/app/retention.ts';
import type { PollRun, RejectedPayload } from '../../src/core/ports.ts';
import { DEFAULT_RETENTION, type RetentionSettings } from '../../src/core/retention.ts';
import { sourceLeaseName } from '../../src/core/statuspage/mapping.ts';
import { queryPlan } from '../helpers/query-plan.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';
import { logLines } from '../helpers/log-lines.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

let runCounter = 0;
function run(outcome: PollRun['outcome'], startedAt: number): PollRun {
  return { id: `run-${++runCounter}`, startedAt, finishedAt: startedAt + 5, outcome, sources: [], changes: {} };
}

function rejected(text: string, hash: string): RejectedPayload {
  return { source: 'v2/current', url: 'http://vendor.test/api/v2.0.0/current', body: text, error: 'invalid JSON', sha256: hash.padEnd(64, '0') };
}

describe('pruning expired rows', () => {
  let archive: TempArchive;
  const logs: string[] = [];
  const logger = createConsoleLogger({ level: 'debug', format: 'json', write: (line) => logs.push(line) });
  const pruneAt = (now: number, settings: Partial<RetentionSettings> = {}, batchRows?: number) =>
    createPruner({ store: archive.store, logger, settings: { ...DEFAULT_RETENTION, ...settings }, batchRows }).pruneExpired(now);
  const count = (table: string) => (archive.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  beforeEach(() => {
    archive = openTempArchive();
    logs.length = 0;
  });
  afterEach(() => archive.remove());

  it('leaves no rejection record or body text behind that no poll run or counter can reach', async () => {
    // The contract suites (test/contracts/retention.contract.ts) check what the port shows; what
    // it cannot show is a row left unreachable, which no later prune would ever find.
    const old = run('failed', NOW - 45 * DAY_MS);
    const recent = run('failed', NOW - 2 * DAY_MS);
    await archive.store.recordPollRun(old, [rejected('<html>down</html>', 'aa'), { ...rejected('<html>old page</html>', 'bb'), source: 'v2/history' }]);
    await archive.store.recordPollRun(recent, [rejected('<html>down</html>', 'aa')]);
    const page = (n: number) => `<html>${String(n).repeat(20_000)}</html>`; // about 20 KB, kept whole
    for (let i = 1; i <= 3; i++) await archive.store.recordPollRun(run('failed', NOW - (10 - i) * 60_000), [rejected(page(i), `d${i}`)]);

    const counts = await pruneAt(NOW, { pollRunsDays: 30, rejectedPayloadsDays: 7, rejectedPayloadsMaxBytes: 50_000 });

    expect(counts).toMatchObject({ pollRuns: 1, rejectedBodies: 3 });
    // The old run and its two records go; bb by age, then d1 and aa by the 1 MB cap (d3 and d2
    // are the most recently seen). Every record left belongs to a run; every text to a counter.
    expect(count('poll_run_rejections')).toBe(4);
    expect([count('rejected_bodies'), count('rejected_body_texts')]).toEqual([2, 2]);
    expect((await archive.store.getPollRun(recent.id))?.rejected[0]?.body).toBeNull();
  });

  it('deletes in bounded batches until nothing is left, and says what it removed in one log line', async () => {
    // Sign-up logs as the limiter leaves them: 25 whose window ended a millisecond ago, one still open.
    const rule = { limit: 1, windowMs: 60_000 };
    for (let i = 0; i < 25; i++) expect((await archive.store.hitRateLimit(`ip4:10.0.0.${i}`, rule, NOW - 60_001)).allowed).toBe(true);
    expect((await archive.store.hitRateLimit('ip4:10.0.1.1', rule, NOW)).allowed).toBe(true);

    const counts = await pruneAt(NOW, {}, 10);

    expect(counts).toEqual({
      pollRuns: 0,
      rejectedBodies: 0,
      pendingSignups: 0,
      linkTokens: 0,
      rateLimits: 25,
      appConversationHolds: 0,
      groupMemberSends: 0,
      incidentMessages: 0,
      blindSpells: 0,
      sourceLeases: 0,
      purgedSourceRows: 0,
    });
    // The open window's log is the one left: it still refuses a second sign-up.
    expect((await archive.store.hitRateLimit('ip4:10.0.1.1', rule, NOW + 1, { peek: true })).allowed).toBe(false);
    const lines = logLines(logs, 'pruned expired rows');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', rateLimits: 25, pollRuns: 0 });
  });

  it("sweeps the lease a poll killed mid-way left for a page removed since, and keeps a watched page's", async () => {
    for (const n of [1, 2])
      await archive.store.addSource({ id: `src_${n}`, kind: 'statuspage', name: `V${n}`, url: `https://s${n}.example.com`, createdAt: NOW }, 10);
    expect(await archive.store.removeSource('src_2')).toBe(true);
    // Taken by a poll that began as the page was removed, and never given back (the process was killed).
    for (const n of [1, 2]) expect(await archive.store.tryAcquireLease(sourceLeaseName(`src_${n}`), 'killed', NOW - DAY_MS, 60_000)).toBe(true);

    expect(await pruneAt(NOW)).toMatchObject({ sourceLeases: 1 });
    expect(await archive.store.leaseHolder(sourceLeaseName('src_2'))).toBeNull();
    expect(await archive.store.leaseHolder(sourceLeaseName('src_1'))).toBe('killed');
  });

  describe('query plans', () => {
    const plan = (text: string) => queryPlan(archive.sqlite, text);

    it('finds expired rate-limit rows through rate_limits_expires, not a scan', () => {
      expect(plan('DELETE FROM rate_limits WHERE expires_ms < ?')).toContainEqual(
        expect.stringMatching(/SEARCH rate_limits USING (COVERING )?INDEX rate_limits_expires/),
      );
      expect(plan(PRUNE_SQL.rateLimits)).toContainEqual(expect.stringMatching(/SEARCH rate_limits USING (COVERING )?INDEX rate_limits_expires/));
    });

    it.each(Object.entries(PRUNE_SQL).filter(([name]) => !name.startsWith('oversize')))('%s scans no table', (_name, text) => {
      const details = plan(text);
      // `SCAN x` reads a whole table (or index), and a temporary B-tree sorts every candidate row.
      expect(details.filter((d) => /^SCAN /.test(d) || /TEMP B-TREE/.test(d))).toEqual([]);
    });
  });
});
