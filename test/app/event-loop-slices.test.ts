/** Slicing long work so that other callbacks (a request, a timer) get their turn in between. */
import { describe, expect, it } from 'vitest';
import { forEachSlice } from '../../src/app/event-loop-slices.ts';

describe('forEachSlice', () => {
  it('works through every item in order, in slices, letting a waiting timer run between them', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('timer'), 0);
    await forEachSlice([1, 2, 3, 4, 5], 2, (slice, start) => void order.push(`${start}:${slice.join(',')}`));
    expect(order).toEqual(['0:1,2', 'timer', '2:3,4', '4:5']);
  });

  it('does nothing for an empty list', async () => {
    let calls = 0;
    await forEachSlice([], 10, () => calls++);
    expect(calls).toBe(0);
  });
});
