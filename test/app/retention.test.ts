/**
 * Pruning on a real SQLite file: poll runs past their retention (never what /healthz reads),
 * rejected payloads by age and by the size cap, in bounded batches, and the query plans that
 * keep each prune a seek rather than a scan.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleLogger } from '../../src/adapters/console-logger.ts';
import { PRUNE_SQL } from '../../src/adapters/sqlite-retention.ts';
import { createPruner } from '../../src/app/retention.ts';
import type { PollRun, RejectedPayload } from '../../src/core/ports.ts';
import { DEFAULT_RETENTION, type RetentionSettings } from '../../src/core/retention.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

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

  it('drops poll runs older than the retention with what they refused, and keeps the recent ones', async () => {
    const old = [run('ok', NOW - 45 * DAY_MS), run('failed', NOW - 40 * DAY_MS), run('partial', NOW - 31 * DAY_MS)];
    const recent = [run('ok', NOW - 29 * DAY_MS), run('failed', NOW - 2 * DAY_MS), run('ok', NOW - 60_000)];
    for (const r of [...old, ...recent]) await archive.store.recordPollRun(r, r.outcome === 'failed' ? [rejected('<html>down</html>', 'aa')] : []);

    const counts = await pruneAt(NOW, { pollRunsDays: 30 });

    expect(counts.pollRuns).toBe(3);
    for (const r of old) expect(await archive.store.getPollRun(r.id)).toBeNull();
    const kept = await archive.store.listPollRuns(null, 100);
    expect(kept.map((r) => r.id)).toEqual(recent.map((r) => r.id).reverse());
    // The old failed run's rejection record went with it; the recent one still shows the body.
    expect(count('poll_run_rejections')).toBe(1);
    expect((await archive.store.getPollRun(recent[1]!.id))?.rejected[0]?.body?.text).toBe('<html>down</html>');
  });

  it('never prunes what /healthz reads: the last success and the last run, however old', async () => {
    // The vendor has been failing for 40 days (a poll a day here, for brevity); 30 days are kept.
    const lastSuccess = run('ok', NOW - 41 * DAY_MS);
    await archive.store.recordPollRun(run('ok', NOW - 50 * DAY_MS), []);
    await archive.store.recordPollRun(lastSuccess, []);
    for (let day = 40; day >= 1; day--) await archive.store.recordPollRun(run('failed', NOW - day * DAY_MS), []);
    const before = await archive.store.feedHealth();

    await pruneAt(NOW, { pollRunsDays: 30 });

    const after = await archive.store.feedHealth();
    expect(after.lastSuccessAt).toBe(lastSuccess.startedAt);
    expect(after.lastRun).toEqual(before.lastRun);
    // Failures older than the retention are no longer counted, but the feed still reads as failing.
    expect(before.consecutiveFailures).toBe(40);
    expect(after.consecutiveFailures).toBe(30);
    expect(count('poll_runs')).toBe(1 + 30);
  });

  it('drops rejected bodies not seen within their retention; a run that kept one says it was pruned', async () => {
    const stale = run('failed', NOW - 10 * DAY_MS);
    const fresh = run('failed', NOW - 1 * DAY_MS);
    await archive.store.recordPollRun(stale, [rejected('<html>old page</html>', 'bb')]);
    await archive.store.recordPollRun(fresh, [rejected('<html>new page</html>', 'cc')]);

    const counts = await pruneAt(NOW, { pollRunsDays: 30, rejectedPayloadsDays: 7 });

    expect(counts.rejectedBodies).toBe(1);
    const staleShown = await archive.store.getPollRun(stale.id);
    expect(staleShown?.rejected).toMatchObject([{ source: 'v2/current', error: 'invalid JSON', sha256: 'bb'.padEnd(64, '0'), body: null }]);
    expect((await archive.store.getPollRun(fresh.id))?.rejected[0]?.body).toMatchObject({ text: '<html>new page</html>', seenCount: 1 });
    expect([count('rejected_bodies'), count('rejected_body_texts')]).toEqual([1, 1]);
  });

  it('keeps the most recently seen bodies within the size cap, and always the newest one', async () => {
    const page = (n: number) => `<html>${String(n).repeat(400_000)}</html>`; // about 400 KB each
    for (let i = 1; i <= 5; i++) await archive.store.recordPollRun(run('failed', NOW - (10 - i) * 60_000), [rejected(page(i), `d${i}`)]);

    await pruneAt(NOW, { rejectedPayloadsMaxBytes: 1_000_000 });
    const keptHashes = () => (archive.sqlite.prepare('SELECT hash FROM rejected_bodies ORDER BY hash').all() as { hash: string }[]).map((r) => r.hash.slice(0, 2));
    expect(keptHashes()).toEqual(['d4', 'd5']);
    expect(count('rejected_body_texts')).toBe(2);

    // One body larger than the whole cap is still kept when it is the newest: an admin must see it.
    await archive.store.recordPollRun(run('failed', NOW), [rejected('x'.repeat(1_500_000), 'ee')]);
    await pruneAt(NOW, { rejectedPayloadsMaxBytes: 1_000_000 });
    expect(keptHashes()).toEqual(['ee']);
  });

  it('deletes in bounded batches until nothing is left, and says what it removed in one log line', async () => {
    // Sign-up logs as the limiter leaves them: 25 whose window ended a millisecond ago, one still open.
    const rule = { limit: 1, windowMs: 60_000 };
    for (let i = 0; i < 25; i++) expect((await archive.store.hitRateLimit(`ip4:10.0.0.${i}`, rule, NOW - 60_001)).allowed).toBe(true);
    expect((await archive.store.hitRateLimit('ip4:10.0.1.1', rule, NOW)).allowed).toBe(true);

    const counts = await pruneAt(NOW, {}, 10);

    expect(counts).toEqual({ pollRuns: 0, rejectedBodies: 0, pendingSignups: 0, linkTokens: 0, rateLimits: 25 });
    // The open window's log is the one left: it still refuses a second sign-up.
    expect((await archive.store.hitRateLimit('ip4:10.0.1.1', rule, NOW + 1, { peek: true })).allowed).toBe(false);
    const lines = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'pruned expired rows');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', rateLimits: 25, pollRuns: 0 });
  });

  describe('query plans', () => {
    const plan = (text: string) =>
      (archive.sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => 0)) as { detail: string }[]).map(
        (r) => r.detail,
      );

    it('finds expired rate-limit rows through rate_limits_expires, not a scan', () => {
      expect(plan('DELETE FROM rate_limits WHERE expires_ms < ?')).toContainEqual(expect.stringMatching(/SEARCH rate_limits USING (COVERING )?INDEX rate_limits_expires/));
      expect(plan(PRUNE_SQL.rateLimits)).toContainEqual(expect.stringMatching(/SEARCH rate_limits USING (COVERING )?INDEX rate_limits_expires/));
    });

    it.each(Object.entries(PRUNE_SQL).filter(([name]) => !name.startsWith('oversize')))('%s scans no table', (_name, text) => {
      const details = plan(text);
      // `SCAN x` reads a whole table (or index), and a temporary B-tree sorts every candidate row.
      expect(details.filter((d) => /^SCAN /.test(d) || /TEMP B-TREE/.test(d))).toEqual([]);
    });
  });
});
