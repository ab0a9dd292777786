/** Slicing long work so that other callbacks (a request, a timer) get their turn in between. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forEachSlice, forEachSliceWithin } from '../../src/app/event-loop-slices.ts';

describe('forEachSlice', () => {
  it('works through every item in order, in slices', async () => {
    const seen: string[] = [];
    await forEachSlice([1, 2, 3, 4, 5], 2, (slice, start) => void seen.push(`${start}:${slice.join(',')}`));
    expect(seen).toEqual(['0:1,2', '2:3,4', '4:5']);
  });

  it('lets pending I/O in between slices: a request to a loopback server is answered before the work ends', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const order: string[] = [];
      const answered = fetch(`http://127.0.0.1:${port}/`).then(async (r) => {
        await r.text();
        order.push('answered');
      });
      // Each slice holds the thread for 5 ms; with no macrotask between slices (a microtask, say)
      // the answer could only come after all 60.
      await forEachSlice(
        Array.from({ length: 60 }, (_, i) => i),
        1,
        () => {
          order.push('slice');
          const until = performance.now() + 5;
          while (performance.now() < until);
        },
      );
      await answered;
      expect(order.indexOf('answered')).toBeLessThan(60);
    } finally {
      server.close();
    }
  });

  it('does nothing for an empty list', async () => {
    let calls = 0;
    await forEachSlice([], 10, () => calls++);
    expect(calls).toBe(0);
  });
});

describe('forEachSliceWithin', () => {
  /** The slices in order, with 'turn' wherever another task (queued at the start, and again by itself) ran between two. */
  async function turnsAmong(costs: number[], budget: number): Promise<string[]> {
    const order: string[] = [];
    let done = false;
    const other = () => {
      if (done) return;
      order.push('turn');
      setImmediate(other);
    };
    setImmediate(other);
    await forEachSliceWithin(costs, 1, budget, ([cost], start) => {
      order.push(`${start}`);
      return cost!;
    });
    done = true;
    return order;
  }

  it('goes through slices that cost little in one turn', async () => {
    expect(await turnsAmong([0.1, 0.1, 0.1, 0.1, 0.1], 1)).toEqual(['0', '1', '2', '3', '4']);
  });

  it('yields once the budget is spent, and counts again from there', async () => {
    expect(await turnsAmong([1, 1, 0.5, 0.5, 0.1, 2, 0.1], 1)).toEqual(['0', 'turn', '1', 'turn', '2', '3', 'turn', '4', '5', 'turn', '6']);
  });
});
