/** Scenarios: an initial world plus a timeline of steps, and the runner that walks (and loops) them. */
import type { SimIncident } from './world.ts';

/** What a step may use: the time to stamp, fresh ids, and names for incidents opened this cycle. */
export type StepContext = {
  nowMs: number;
  cycle: number;
  allocateId(): number;
  /** Incident ids by role ("first", "outage"), reset at each cycle so a loop opens new incidents. */
  roles: Map<string, number>;
};

export type ScenarioStep = {
  name: string;
  apply(world: readonly SimIncident[], ctx: StepContext): SimIncident[];
};

export type Scenario = {
  name: string;
  initialWorld(): SimIncident[];
  steps: readonly ScenarioStep[];
  /** After the last step, start the steps again (fresh ids, current times) instead of stopping. */
  loop: boolean;
};

export type ScenarioRunner = {
  readonly step: number;
  readonly cycle: number;
  readonly stepCount: number;
  /** Applies the next step to `world`; returns the world unchanged when a non-looping scenario is done. */
  advance(world: readonly SimIncident[], clockMs: number): SimIncident[];
  reset(): SimIncident[];
};

export function createScenarioRunner(scenario: Scenario): ScenarioRunner {
  let step = 0;
  let cycle = 1;
  let roles = new Map<string, number>();
  let lastStepMs = Number.NEGATIVE_INFINITY;

  return {
    get step() {
      return step;
    },
    get cycle() {
      return cycle;
    },
    stepCount: scenario.steps.length,
    advance(world, clockMs) {
      if (step >= scenario.steps.length) {
        if (!scenario.loop || scenario.steps.length === 0) return [...world];
        step = 0;
        cycle += 1;
        roles = new Map();
      }
      const current = scenario.steps[step];
      if (!current) return [...world];
      // Whole seconds (the feed has no fractions) and strictly increasing, so steps taken in quick
      // succession by a test still get distinct, ordered timestamps.
      const nowMs = Math.max(Math.floor(clockMs / 1000) * 1000, lastStepMs + 1000);
      lastStepMs = nowMs;
      let nextId = Math.max(0, ...world.map((i) => i.id)) + 1;
      const ctx: StepContext = { nowMs, cycle, roles, allocateId: () => nextId++ };
      const result = current.apply(world, ctx);
      step += 1;
      return result;
    },
    reset() {
      step = 0;
      cycle = 1;
      roles = new Map();
      lastStepMs = Number.NEGATIVE_INFINITY;
      return scenario.initialWorld();
    },
  };
}
