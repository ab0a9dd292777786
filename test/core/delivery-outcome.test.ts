import { describe, expect, it } from 'vitest';
import { decideOutcome, LAST_SUCCESS_STEP_MS } from '../../src/core/delivery-outcome.ts';
import { FIVE_DAYS_MS, MAX_ATTEMPTS } from '../../src/core/retry-schedule.ts';
import { gone, refused, retry, sent, type SendOutcome } from '../../src/core/send-outcome.ts';

const NOW = Date.UTC(2026, 10, 22, 12);
const failed = (retryAfterMs: number | null = null): SendOutcome => retry('HTTP 500', { retryAfterMs });
const decide = (result: SendOutcome, attempt = 1, failingSince: number | null = null, lastSuccessAt: number | null = null) =>
  decideOutcome({ result, attempt, now: NOW, firstAttemptAt: NOW - 1000, failingSince, lastSuccessAt, random: () => 0.5 });

describe('decideOutcome', () => {
  it('marks a success done and the subscription healthy', () => {
    expect(decide(sent(200, ''))).toEqual({ outcome: { kind: 'done' }, health: { kind: 'succeeded' } });
  });

  it("writes a healthy subscription's last success at most once a minute", () => {
    const unchanged = { outcome: { kind: 'done' }, health: { kind: 'unchanged' } };
    const succeeded = { outcome: { kind: 'done' }, health: { kind: 'succeeded' } };
    // Healthy, its last success written within the minute: that record still says when one was.
    expect(decide(sent(200, ''), 1, null, NOW - 1_000)).toEqual(unchanged);
    expect(decide(sent(200, ''), 1, null, NOW - LAST_SUCCESS_STEP_MS + 1)).toEqual(unchanged);
    // A minute old, never a success, or failing: written, so the shown health is true.
    expect(decide(sent(200, ''), 1, null, NOW - LAST_SUCCESS_STEP_MS)).toEqual(succeeded);
    expect(decide(sent(200, ''), 1, null, null)).toEqual(succeeded);
    expect(decide(sent(200, ''), 1, NOW - 5_000, NOW - 1_000)).toEqual(succeeded);
  });

  it('retries a failure on the schedule, keeping the error, and counts the subscription as failing', () => {
    expect(decide(failed())).toEqual({ outcome: { kind: 'retry', at: NOW + 5_000, error: 'HTTP 500' }, health: { kind: 'failed' } });
    expect(decide(failed(60_000)).outcome).toEqual({ kind: 'retry', at: NOW + 60_000, error: 'HTTP 500' });
  });

  it('gives up after the last attempt with both reasons', () => {
    const { outcome } = decide(failed(), MAX_ATTEMPTS);
    expect(outcome.kind).toBe('dead');
    expect(outcome.kind === 'dead' && outcome.reason).toMatch(/^HTTP 500; gave up after 8 attempts/);
  });

  it('ends a permanent failure at once, without pausing a subscription that is otherwise fine', () => {
    expect(decide(refused('target refused: loopback'))).toEqual({
      outcome: { kind: 'dead', reason: 'target refused: loopback' },
      health: { kind: 'failed' },
    });
  });

  it('pauses on 410 Gone, with the reason the channel gives', () => {
    expect(decide(gone('HTTP 410', 'the receiver answered 410 Gone'))).toEqual({
      outcome: { kind: 'dead', reason: 'HTTP 410' },
      health: { kind: 'paused', reason: 'the receiver answered 410 Gone' },
    });
  });

  it('pauses a subscription failing for five days, and not a moment before', () => {
    expect(decide(failed(), 3, NOW - FIVE_DAYS_MS + 1).health).toEqual({ kind: 'failed' });
    const paused = decide(failed(), 3, NOW - FIVE_DAYS_MS).health;
    expect(paused.kind).toBe('paused');
    expect(paused.kind === 'paused' && paused.reason).toMatch(/^failing continuously for 5 d/);
  });
});
