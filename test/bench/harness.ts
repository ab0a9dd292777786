/** What every benchmark section shares: its report shape, the error for a broken setup, a silent logger. */
import type { Logger } from '../../src/core/ports.ts';

/** A stated goal and whether this run met it. Benchmarks report misses; they do not fail on them. */
export type Goal = { name: string; met: boolean; detail: string };

export type SectionReport = { text: string; goals: Goal[] };

/**
 * The benchmark measured something other than what it claims (a poll that did not see its change,
 * a seed that differs from what the store writes): the figures would be meaningless, so the run fails.
 */
export class BenchBroken extends Error {
  override readonly name = 'BenchBroken';
}

export function expectBench(condition: boolean, message: string): asserts condition {
  if (!condition) throw new BenchBroken(message);
}

/** Logging would cost time inside the measured polls and bury the report. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
