/**
 * Simulated pages in the Statuspage format for route tests, driven over their HTTP control API
 * (/_sim) so the same test runs in both projects: on Node each page runs in the test process; the
 * workers project swaps this file for test/workers/harness/statuspage-pages.ts (pages started by
 * the fixture factory on the Node side).
 */
import { startSimulatedStatuspage } from '../../src/sim/statuspage/app.ts';
import { controlledStatuspage, type TestStatuspage } from './statuspage-control.ts';

export type { TestStatuspage };

export async function startTestStatuspage(options: { name?: string } = {}): Promise<TestStatuspage> {
  const running = await startSimulatedStatuspage(options);
  return controlledStatuspage(running.url, () => running.close());
}
