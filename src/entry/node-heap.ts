/**
 * How far V8 lets the long-running service's heap grow past what it holds. After each full
 * collection V8 allows the old generation to reach a multiple of what survived before it collects
 * again; left to itself it picks up to 4x when collections are quick and the heap is small. Under a
 * flood of uncached requests the service then carried more garbage than live data: 30,000 unique
 * URLs took its RSS ~100 MB over a baseline of ~200 MB while its caches held ~26 MB. At 1.5x the
 * garbage between two full collections is at most half of what lives, for more full collections,
 * which mark concurrently with the requests.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/**
 * Set once, before the service starts: V8 reads the factor at each full collection. An operator's
 * own `--heap-growing-percent` (on node's command line or in NODE_OPTIONS) wins.
 */
export function boundHeapGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => /--heap[-_]growing[-_]percent/.test(arg));
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
