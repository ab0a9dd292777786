/** Bounded concurrency: never more than the limit at once, every piece of work run, in order of arrival. */
import { describe, expect, it } from 'vitest';
import { createSlots, forEachAtMost } from '../../src/app/concurrency.ts';

/** Work that records how many ran at once, and ends when the test says. */
function tracked() {
  let active = 0;
  let most = 0;
  const started: number[] = [];
  const work = async (n: number) => {
    started.push(n);
    active++;
    most = Math.max(most, active);
    await new Promise((resolve) => setTimeout(resolve, 5));
    active--;
    return n * 10;
  };
  return { work, started, most: () => most };
}

describe('createSlots', () => {
  it('runs at most the limit at once, the rest in the order they came, each with its own result', async () => {
    const t = tracked();
    const slots = createSlots(2);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => slots.run(() => t.work(n))));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(t.most()).toBe(2);
    expect(t.started).toEqual([1, 2, 3, 4, 5]);
  });

  it('frees the slot of work that failed', async () => {
    const slots = createSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
  });
});

describe('forEachAtMost', () => {
  it('works through every item with at most the limit at once', async () => {
    const t = tracked();
    await forEachAtMost([1, 2, 3, 4, 5, 6, 7], 3, t.work);
    expect([...t.started].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.most()).toBe(3);
  });
});
