/**
 * Simulated pages in the Statuspage format for route tests, driven over their HTTP control API
 * (/_sim) so the same test runs in both projects: on Node each page runs in the test process; the
 * workers project swaps this file for test/workers/harness/statuspage-pages.ts (pages started by
 * the fixture factory on the Node side).
 */
import { startSimulatedStatuspage, type SimulatedStatuspageOptions } from '../../src/sim/statuspage/app.ts';
import { demoStatuspageStory } from '../../src/sim/statuspage/demo-pages.ts';
import { controlledStatuspage, type TestStatuspage } from './statuspage-control.ts';

export type { TestStatuspage };

/** `demo`: one of the demo's pages by name (src/sim/statuspage/demo-pages.ts), with its own story. */
export type TestStatuspageOptions = { name?: string; demo?: string };

/** The simulated page's options for a test's: a demo page's story when it names one. */
export function statuspageOptionsOf(options: TestStatuspageOptions): SimulatedStatuspageOptions {
  if (options.demo === undefined) return { ...(options.name === undefined ? {} : { name: options.name }) };
  const story = demoStatuspageStory(options.demo);
  if (!story) throw new Error(`no demo page named ${options.demo}`);
  return { name: options.name ?? story.name, initial: story.initial, steps: story.steps };
}

export async function startTestStatuspage(options: TestStatuspageOptions = {}): Promise<TestStatuspage> {
  const running = await startSimulatedStatuspage(statuspageOptionsOf(options));
  return controlledStatuspage(running.url, () => running.close());
}
