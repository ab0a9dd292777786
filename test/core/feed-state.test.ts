import { describe, expect, it } from 'vitest';
import { feedState } from '../../src/core/feed-state.ts';
import { STALE_AFTER_MS } from '../../src/core/knowledge.ts';
import type { FeedHealth, PollRun } from '../../src/core/ports.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

function run(outcome: PollRun['outcome'], error?: string): PollRun {
  return { id: 'r', startedAt: NOW - 1000, finishedAt: NOW - 900, outcome, sources: [], changes: {}, ...(error ? { error } : {}) };
}

const health = (lastRun: PollRun | null, lastSuccessAt: number | null, consecutiveFailures: number): FeedHealth => ({
  lastRun,
  lastSuccessAt,
  consecutiveFailures,
});

describe('feedState', () => {
  it('is never-read before any poll, and says whether one was attempted and how it failed', () => {
    expect(feedState(health(null, null, 0), NOW)).toEqual({ kind: 'never-read', attempted: false, lastError: null });
    expect(feedState(health(run('failed', 'getaddrinfo ENOTFOUND'), null, 3), NOW)).toEqual({
      kind: 'never-read',
      attempted: true,
      lastError: 'getaddrinfo ENOTFOUND',
    });
  });

  it('is ok while the last read is fresh and succeeded', () => {
    expect(feedState(health(run('ok'), NOW - 60_000, 0), NOW)).toEqual({ kind: 'ok', lastSuccessAt: NOW - 60_000 });
  });

  it('is stale while recent attempts fail within the limit, blind from the limit on', () => {
    const failed = run('failed', 'HTTP 503');
    expect(feedState(health(failed, NOW - 60_000, 2), NOW)).toEqual({ kind: 'stale', lastSuccessAt: NOW - 60_000, failures: 2, lastError: 'HTTP 503' });
    expect(feedState(health(failed, NOW - STALE_AFTER_MS, 5), NOW)).toEqual({ kind: 'blind', since: NOW - STALE_AFTER_MS, failures: 5, lastError: 'HTTP 503' });
    // A process that stopped polling is blind too, with no error to show.
    expect(feedState(health(run('ok'), NOW - STALE_AFTER_MS - 1, 0), NOW)).toEqual({
      kind: 'blind',
      since: NOW - STALE_AFTER_MS - 1,
      failures: 0,
      lastError: null,
    });
  });
});
