/**
 * Run as a child process by node-heap.test.ts: a live set of LIVE_MB, then garbage that lives long
 * enough to reach the old generation (held in a ring, then dropped), CHURN_MB of it in all. Prints
 * the live heap after a full collection and the largest heap seen, in MB, as JSON.
 */
import { boundHeapGrowth } from '../../src/entry/node-heap.ts';

if (process.env.BOUND_HEAP_GROWTH === '1') boundHeapGrowth();
const LIVE_MB = 40;
const CHURN_MB = 600;
const MB = 1024 * 1024;
/** ~250 bytes of heap each (the object, its string), one of the many small objects a request leaves. */
const item = (n: number) => ({ n, text: `item ${n} `.padEnd(40, '.') });
const ITEMS_PER_MB = Math.round(MB / 250);

const live = Array.from({ length: LIVE_MB * ITEMS_PER_MB }, (_, n) => item(n));
const ring: ReturnType<typeof item>[][] = [];
let peakBytes = 0;
for (let mb = 0; mb < CHURN_MB; mb++) {
  ring.push(Array.from({ length: ITEMS_PER_MB }, (_, n) => item(n)));
  if (ring.length > 8) ring.shift();
  peakBytes = Math.max(peakBytes, process.memoryUsage().heapUsed);
  // A turn of the event loop now and then, as a server's requests give, for V8's own tasks.
  if (mb % 2 === 0) await new Promise((resolve) => setImmediate(resolve));
}
ring.length = 0;
(globalThis as { gc?: () => void }).gc?.();
const liveBytes = process.memoryUsage().heapUsed;
process.stdout.write(JSON.stringify({ liveMb: liveBytes / MB, peakMb: peakBytes / MB, kept: live.length }));
