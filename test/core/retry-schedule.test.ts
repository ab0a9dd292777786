import { describe, expect, it } from 'vitest';
import {
  FIVE_DAYS_MS,
  MAX_ATTEMPTS,
  RETRY_AFTER_CAP_MS,
  RETRY_DELAYS_MS,
  RETRY_JITTER_FRACTION,
  nextAttempt,
  subscriptionHealth,
} from '../../src/core/retry-schedule.ts';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const constant = (value: number) => () => value;

function retryAt(input: Parameters<typeof nextAttempt>[0]): number {
  const decision = nextAttempt(input);
  if (decision.kind !== 'retry') throw new Error(`expected a retry, got ${JSON.stringify(decision)}`);
  return decision.at;
}

describe('nextAttempt', () => {
  it('follows the Standard Webhooks schedule: 8 attempts, about 27.6 h of delay', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(99_305_000);
  });

  it('keeps each delay within the jitter bounds, at both ends and in the middle of random()', () => {
    RETRY_DELAYS_MS.forEach((delayMs, index) => {
      const attempt = index + 1;
      const base = { attempt, now: NOW, retryAfterMs: null, firstAttemptAt: NOW - 1000 };
      expect(retryAt({ ...base, random: constant(0.5) }) - NOW, `attempt ${attempt}`).toBe(delayMs);
      expect(retryAt({ ...base, random: constant(0) }) - NOW).toBe(Math.round(delayMs * (1 - RETRY_JITTER_FRACTION)));
      const highest = retryAt({ ...base, random: constant(0.999_999_999) }) - NOW;
      expect(highest).toBeLessThanOrEqual(Math.round(delayMs * (1 + RETRY_JITTER_FRACTION)));
      expect(highest).toBeGreaterThan(delayMs * 1.19);
      for (let i = 0; i < 200; i++) {
        const delay = retryAt({ ...base, random: Math.random }) - NOW;
        expect(delay).toBeGreaterThanOrEqual(delayMs * 0.8);
        expect(delay).toBeLessThanOrEqual(delayMs * 1.2);
      }
    });
  });

  it('is deterministic given random(), and calls it once per retry', () => {
    let calls = 0;
    const random = () => {
      calls++;
      return 0.25;
    };
    const input = { attempt: 4, now: NOW, retryAfterMs: null, random, firstAttemptAt: NOW - HOUR_MS };
    expect(nextAttempt(input)).toEqual(nextAttempt(input));
    expect(nextAttempt(input)).toEqual({ kind: 'retry', at: NOW + 2 * HOUR_MS * 0.9 });
    expect(calls).toBe(3);
  });

  it('honours a Retry-After later than the schedule, and ignores an earlier one', () => {
    const base = { attempt: 2, now: NOW, random: constant(0.5), firstAttemptAt: NOW - 10_000 };
    // The schedule says 5 min after attempt 2.
    expect(retryAt({ ...base, retryAfterMs: 60 * 60_000 })).toBe(NOW + 60 * 60_000);
    expect(retryAt({ ...base, retryAfterMs: 30_000 })).toBe(NOW + 5 * 60_000);
    expect(retryAt({ ...base, retryAfterMs: 0 })).toBe(NOW + 5 * 60_000);
    expect(retryAt({ ...base, retryAfterMs: -5_000 })).toBe(NOW + 5 * 60_000);
    expect(retryAt({ ...base, retryAfterMs: Number.NaN })).toBe(NOW + 5 * 60_000);
  });

  it('caps Retry-After at 24 h', () => {
    const base = { attempt: 1, now: NOW, random: constant(0.5), firstAttemptAt: NOW };
    expect(RETRY_AFTER_CAP_MS).toBe(DAY_MS);
    expect(retryAt({ ...base, retryAfterMs: 7 * DAY_MS })).toBe(NOW + DAY_MS);
    expect(retryAt({ ...base, retryAfterMs: Number.POSITIVE_INFINITY })).toBe(NOW + DAY_MS);
    expect(retryAt({ ...base, retryAfterMs: DAY_MS - 1 })).toBe(NOW + DAY_MS - 1);
  });

  it('walks the whole schedule and is dead after the 8th attempt, saying how long it tried', () => {
    let now = NOW;
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      now = retryAt({ attempt, now, retryAfterMs: null, random: constant(0.5), firstAttemptAt: NOW });
    }
    expect(now - NOW).toBe(99_305_000);
    const random = () => {
      throw new Error('random() is not needed to give up');
    };
    expect(nextAttempt({ attempt: 8, now, retryAfterMs: 60_000, random, firstAttemptAt: NOW })).toEqual({
      kind: 'dead',
      reason: 'gave up after 8 attempts over 28 h',
    });
    expect(nextAttempt({ attempt: 9, now: NOW + 4 * DAY_MS, retryAfterMs: null, random, firstAttemptAt: NOW })).toEqual({
      kind: 'dead',
      reason: 'gave up after 9 attempts over 4 d',
    });
  });

  it('refuses an attempt number or random() outside their ranges', () => {
    const base = { now: NOW, retryAfterMs: null, random: constant(0.5), firstAttemptAt: NOW };
    for (const attempt of [0, -1, 1.5, Number.NaN]) expect(() => nextAttempt({ ...base, attempt })).toThrow(RangeError);
    for (const r of [1, -0.1, Number.NaN]) expect(() => nextAttempt({ ...base, attempt: 1, random: constant(r) })).toThrow(/random/);
    expect(() => nextAttempt({ ...base, attempt: 1, now: Number.NaN })).toThrow(/now/);
  });
});

describe('subscriptionHealth', () => {
  it('is ok while nothing fails', () => {
    expect(subscriptionHealth({ failingSinceMs: null, now: NOW })).toEqual({ kind: 'ok' });
  });

  it('pauses after five days of continuous failure, not a millisecond before', () => {
    expect(FIVE_DAYS_MS).toBe(5 * DAY_MS);
    expect(subscriptionHealth({ failingSinceMs: NOW - FIVE_DAYS_MS + 1, now: NOW })).toEqual({ kind: 'ok' });
    expect(subscriptionHealth({ failingSinceMs: NOW - FIVE_DAYS_MS, now: NOW }).kind).toBe('pause');
    const after = subscriptionHealth({ failingSinceMs: NOW - FIVE_DAYS_MS - 1, now: NOW });
    expect(after).toEqual({ kind: 'pause', reason: 'failing continuously for 5 d (since 2025-01-10T11:59:59.999Z)' });
  });
});
