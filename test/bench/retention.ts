/**
 * Benchmark 7: what hostile input costs the disk and the write path. A sign-up's rate-limit hit
 * with a flood's worth of rate-limit rows in the table, against the same hit in an empty table;
 * a failed poll that refused the same 1 MB page on three endpoints, against a failed poll that
 * refused nothing (time, and bytes the file grew); then one prune of a flood that has expired.
 */
import { createHash } from 'node:crypto';
import { createPruner } from '../../src/app/retention.ts';
import type { PollRun, RejectedPayload } from '../../src/core/ports.ts';
import { signupLimits } from '../../src/core/rate-limit.ts';
import { DEFAULT_RETENTION } from '../../src/core/retention.ts';
import { openTempArchive, tempDir, type TempArchive } from '../helpers/temp-archive.ts';
import { expectBench, silentLogger, type SectionReport } from './harness.ts';
import { interleave, summarize, timed, type Summary } from './stats.ts';
import { heading, ms, ratio, table, type Row } from './table.ts';

export type RetentionBenchOptions = {
  /** Live rate-limit rows in the table while hits are timed: two per spoofed sign-up. */
  rateLimitRows: number;
  rounds: number;
  warmUpRounds: number;
};

const DAY_MS = 24 * 60 * 60 * 1000;
const PAGE_BYTES = 1_000_000;

export async function benchRetention(options: RetentionBenchOptions): Promise<SectionReport> {
  const crowded = openTempArchive(tempDir('statuswatch-bench-retention-'));
  const empty = openTempArchive(tempDir('statuswatch-bench-retention-empty-'));
  try {
    const now = Date.now();
    // The flood's rows, windows still open: a hit must not pay for them.
    const insert = crowded.sqlite.prepare('INSERT INTO rate_limits (key, hits_json, expires_ms) VALUES (?, ?, ?)');
    crowded.sqlite.transaction(() => {
      for (let i = 0; i < options.rateLimitRows; i++)
        insert.run(`ip4:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, `{"hitsMs":[${now}]}`, now + 3_600_000);
    })();
    let hit = 0;
    // A new key each time (a new client), as in a flood; the rule allows it, so every hit writes.
    const hitIn = (archive: TempArchive) => () =>
      archive.store.hitRateLimit(`ip4:192.0.${(hit >> 8) & 255}.${hit++ & 255}`, signupLimits.perClientAddress, now);

    const page = '<html><body>' + 'maintenance '.repeat(PAGE_BYTES / 12) + '</body></html>';
    const sha256 = createHash('sha256').update(page).digest('hex');
    const refused: RejectedPayload[] = (['v2/current', 'v1/current', 'v2/history'] as const).map((source) => ({
      source,
      url: `https://vendor.test/${source}`,
      body: page,
      error: 'invalid JSON: Unexpected token <',
      sha256,
    }));
    let runs = 0;
    const failedRun = (): PollRun => ({
      id: `bench-${++runs}`,
      startedAt: now + runs,
      finishedAt: now + runs,
      outcome: 'failed',
      sources: [],
      changes: {},
      error: 'not a feed',
    });
    const fileBytes = () => (empty.sqlite.pragma('page_count', { simple: true }) as number) * (empty.sqlite.pragma('page_size', { simple: true }) as number);
    const grown = new Map<string, number[]>([
      ['failed poll, nothing refused', []],
      ['failed poll, the same 1 MB page refused 3 times', []],
    ]);
    const recording = (name: string, rejected: RejectedPayload[]) => {
      let before = 0;
      return {
        name,
        before: () => {
          before = fileBytes();
        },
        run: () => empty.store.recordPollRun(failedRun(), rejected),
        after: () => grown.get(name)!.push(fileBytes() - before),
      };
    };

    const cases = [
      { name: 'rate-limit hit, empty table', run: hitIn(empty) },
      { name: `rate-limit hit, ${options.rateLimitRows.toLocaleString('en-US')} live rows`, run: hitIn(crowded) },
      recording('failed poll, nothing refused', []),
      recording('failed poll, the same 1 MB page refused 3 times', refused),
    ];
    await interleave(cases, options.warmUpRounds);
    const samples = await interleave(cases, options.rounds);
    const stats = new Map([...samples].map(([name, list]) => [name, summarize(list)]));
    const get = (name: string) => stats.get(name)!;

    // The flood expires: one prune a week later takes every row.
    const expired = await timed(() => createPruner({ store: crowded.store, logger: silentLogger, settings: DEFAULT_RETENTION }).pruneExpired(now + 8 * DAY_MS));
    const left = (crowded.sqlite.prepare('SELECT count(*) AS n FROM rate_limits').get() as { n: number }).n;
    expectBench(left === 0, `the prune left ${left} expired rate-limit rows`);
    expectBench(expired.value.rateLimits >= options.rateLimitRows, `the prune removed ${expired.value.rateLimits} rate-limit rows`);

    const hitRow = (name: string, base: Summary): Row => [name, get(name).n, ms(get(name).p50), ms(get(name).p95), ratio(get(name).p50 / base.p50), ''];
    const pollRow = (name: string, base: Summary): Row => {
      const growth = grown.get(name)!.slice(options.warmUpRounds);
      const mean = growth.reduce((a, b) => a + b, 0) / Math.max(1, growth.length);
      return [name, get(name).n, ms(get(name).p50), ms(get(name).p95), ratio(get(name).p50 / base.p50), `${(mean / 1024).toFixed(1)} KB`];
    };
    const hitBase = get('rate-limit hit, empty table');
    const pollBase = get('failed poll, nothing refused');
    const text = [
      heading('7. Hostile input and the disk: rate limits, refused payloads, pruning'),
      `${options.rounds} interleaved rounds after ${options.warmUpRounds} warm-up; each case next to its baseline (the first of its pair)`,
      table(
        ['case', 'n', 'p50 ms', 'p95 ms', 'p50 / base', 'file grew per run'],
        [
          hitRow('rate-limit hit, empty table', hitBase),
          hitRow(`rate-limit hit, ${options.rateLimitRows.toLocaleString('en-US')} live rows`, hitBase),
          pollRow('failed poll, nothing refused', pollBase),
          pollRow('failed poll, the same 1 MB page refused 3 times', pollBase),
        ],
      ),
      '',
      `one prune a week later: ${expired.value.rateLimits.toLocaleString('en-US')} expired rate-limit rows in ${ms(expired.ms)} ms, in batches of 500`,
    ].join('\n');
    return { text, goals: [] };
  } finally {
    crowded.remove();
    empty.remove();
  }
}
