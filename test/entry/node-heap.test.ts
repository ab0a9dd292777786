/**
 * The service bounds how far V8 grows its heap past what lives (node-heap.ts): garbage that reaches
 * the old generation, as a flood of uncached requests leaves it, peaks at about half the live heap
 * again (what the churn itself holds, the young generation and the marking's lag come on top),
 * where V8's own choice let a 45 MB live heap reach 236 MB.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHURN = fileURLToPath(new URL('./heap-churn.mts', import.meta.url));
/** The young generation's share of heapUsed, at most (16 MB semi-spaces), and the ring the churn holds. */
const SLACK_MB = 24;

async function churn(bound: boolean): Promise<{ liveMb: number; peakMb: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', CHURN], {
    env: { ...process.env, BOUND_HEAP_GROWTH: bound ? '1' : '0' },
  });
  return JSON.parse(stdout) as { liveMb: number; peakMb: number };
}

describe('the service heap', () => {
  it('holds less garbage than live data between full collections', async () => {
    const { liveMb, peakMb } = await churn(true);
    expect(liveMb).toBeGreaterThan(35);
    // 1.5x the live heap with the ring, then the young generation and the marking's lag.
    expect(peakMb).toBeLessThanOrEqual(2 * liveMb + SLACK_MB);
  }, 60_000);
});
