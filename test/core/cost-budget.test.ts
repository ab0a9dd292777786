import { describe, expect, it } from 'vitest';
import { readBudgetRule, refilled, spent, waitMs } from '../../src/core/cost-budget.ts';

/** 100 ms of work a second, after a burst of 3 s. */
const RULE = readBudgetRule(100);

describe('cost budget', () => {
  it('starts a client with the whole burst, and lets it overdraw once', () => {
    const fresh = refilled(undefined, RULE, 0);
    expect(fresh).toEqual({ balanceMs: 3_000, atMs: 0 });
    const after = spent(fresh, 3_500);
    expect(after.balanceMs).toBe(-500);
    // 500 ms of debt at 100 ms a second: a little over five seconds.
    expect(waitMs(after, RULE)).toBe(5_010);
  });

  it('refills at its rate up to the burst, and a clock that went back refills nothing', () => {
    const indebted = { balanceMs: -500, atMs: 0 };
    expect(refilled(indebted, RULE, 5_000).balanceMs).toBe(0);
    expect(waitMs(refilled(indebted, RULE, 5_000), RULE)).toBeGreaterThan(0);
    expect(waitMs(refilled(indebted, RULE, 5_020), RULE)).toBe(0);
    expect(refilled(indebted, RULE, 3_600_000).balanceMs).toBe(3_000);
    expect(refilled({ balanceMs: 10, atMs: 1_000 }, RULE, 0)).toEqual({ balanceMs: 10, atMs: 1_000 });
  });
});
