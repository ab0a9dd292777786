import { describe, expect, it } from 'vitest';
import { endEpisode, recordFailure, type EpisodePolicy, type FailureEpisode } from '../../src/core/failure-episode.ts';

const POLICY: EpisodePolicy = { firstRetryMs: 1_000, maxRetryMs: 30_000, remindEveryMs: 5 * 60_000 };

/** Fails every retry from `start` until `until`, as a loop following the policy would; returns what it logged and when it tried. */
function failUntil(until: number, reasonAt: (now: number) => string, start = 0, episode: FailureEpisode | null = null) {
  const logged: { at: number; log: string; reason: string }[] = [];
  const attempts: number[] = [];
  let now = start;
  let current = episode;
  while (now < until) {
    attempts.push(now);
    const step = recordFailure(current, { reason: reasonAt(now), now }, POLICY);
    if (step.log) logged.push({ at: now, log: step.log, reason: step.episode.reason });
    current = step.episode;
    now += step.retryInMs;
  }
  return { logged, attempts, episode: current, now };
}

describe('failure episode', () => {
  it('says a ten-minute disk-full episode in two lines, retrying 1, 2, 4... up to 30 s apart', () => {
    const { logged, attempts } = failUntil(10 * 60_000, () => 'disk full');
    expect(logged).toEqual([
      { at: 0, log: 'started', reason: 'disk full' },
      // The first retry at least five minutes after the first line: 31 s plus nine 30 s waits.
      { at: 301_000, log: 'reminder', reason: 'disk full' },
    ]);
    expect(attempts.slice(0, 7)).toEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000]);
    // ~9 a second before: now 24 tries in ten minutes.
    expect(attempts).toHaveLength(24);
  });

  it('never waits longer than the cap, however long it lasts', () => {
    let step = recordFailure(null, { reason: 'database busy', now: 0 }, POLICY);
    for (let i = 0; i < 5_000; i++) step = recordFailure(step.episode, { reason: 'database busy', now: i * 30_000 }, POLICY);
    expect(step.retryInMs).toBe(30_000);
    expect(step.episode.failures).toBe(5_001);
  });

  it('logs again when the reason changes, keeping the episode and its backoff', () => {
    const { logged } = failUntil(20_000, (now) => (now < 7_000 ? 'database busy' : 'disk full'));
    expect(logged.map((l) => [l.at, l.log, l.reason])).toEqual([
      [0, 'started', 'database busy'],
      [7_000, 'changed', 'disk full'],
    ]);
  });

  it('ends with how long it lasted and how many tries failed, and starts afresh after', () => {
    const failing = failUntil(60_000, () => 'disk full');
    expect(endEpisode(failing.episode, 62_000)).toEqual({ reason: 'disk full', failures: 6, lastedMs: 62_000 });
    expect(endEpisode(null, 62_000)).toBeNull();
    const again = recordFailure(null, { reason: 'disk full', now: 70_000 }, POLICY);
    expect(again).toMatchObject({ log: 'started', retryInMs: 1_000 });
  });
});

describe('failure episode without successes', () => {
  const FORGETFUL: EpisodePolicy = { ...POLICY, forgetAfterMs: 60_000 };

  it('starts a new episode after a quiet minute, and otherwise only reminds', () => {
    let step = recordFailure(null, { reason: 'disk full', now: 0 }, FORGETFUL);
    const logs = [step.log];
    // A failing request every 10 s for 6 minutes, a quiet 2 minutes, then one more.
    for (let now = 10_000; now <= 360_000; now += 10_000) {
      step = recordFailure(step.episode, { reason: 'disk full', now }, FORGETFUL);
      logs.push(step.log);
    }
    step = recordFailure(step.episode, { reason: 'disk full', now: 480_000 }, FORGETFUL);
    logs.push(step.log);
    expect(logs.filter((l) => l !== null)).toEqual(['started', 'reminder', 'started']);
    expect(step.episode.since).toBe(480_000);
  });
});
