/** Slicing long work so that other callbacks (a request, a timer) get their turn in between. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forEachSlice } from '../../src/app/event-loop-slices.ts';

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
