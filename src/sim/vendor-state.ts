/** The simulated vendor's mutable state: world, scenario position, clock, faults and request log. */
import { demoScenario } from './demo-scenario.ts';
import { createFeedFaultBook, type FaultBook } from './faults.ts';
import type { FeedEndpoint } from './feed-views.ts';
import { currentV1View, currentV2View, historyView } from './feed-views.ts';
import { createHeldRequests, type HeldRequests } from './held-requests.ts';
import { createRequestLog, type RequestLog } from './request-log.ts';
import { createScenarioRunner, type Scenario } from './scenario.ts';
import { renderCurrentV1, renderCurrentV2, renderHistory, type FeedDocument, type FeedStyle } from './wire.ts';
import { cloneIncident, type SimIncident } from './world.ts';

export type SimulatedVendorOptions = {
  /** Defaults to `demoScenario(clock())`. */
  scenario?: Scenario;
  /** Wire era: `modern` (2026, default) or `legacy` (2019–2023). */
  style?: FeedStyle;
  /** Send ETag and Last-Modified and answer 304; default true. */
  conditional?: boolean;
  /** How far back history reaches, on date_updated; default 183. */
  historyWindowDays?: number;
  /** Advance one scenario step on this interval; off when absent or 0. */
  autoAdvanceMs?: number;
  /** "Now" for the v1 one-hour rule, the history window and new timestamps; default Date.now. */
  clock?: () => number;
};

export type VendorState = {
  readonly style: FeedStyle;
  readonly conditional: boolean;
  readonly historyWindowDays: number;
  readonly faults: FaultBook;
  readonly requests: RequestLog;
  readonly held: HeldRequests;
  now(): number;
  /** A fixed "now", or null to return to the configured clock. */
  setClock(nowMs: number | null): void;
  incidents(): SimIncident[];
  readonly step: number;
  readonly cycle: number;
  readonly stepCount: number;
  advance(): number;
  reset(): void;
  replaceIncidents(incidents: readonly SimIncident[]): void;
  /** Returns true when the id was new. */
  upsertIncident(incident: SimIncident): boolean;
  render(endpoint: FeedEndpoint): FeedDocument;
};

const DEFAULT_HISTORY_WINDOW_DAYS = 183;

export function createVendorState(options: SimulatedVendorOptions = {}): VendorState {
  const baseClock = options.clock ?? Date.now;
  let fixedNowMs: number | null = null;
  const now = (): number => fixedNowMs ?? baseClock();

  const style = options.style ?? 'modern';
  const historyWindowDays = options.historyWindowDays ?? DEFAULT_HISTORY_WINDOW_DAYS;
  const runner = createScenarioRunner(options.scenario ?? demoScenario(now()));
  let world: SimIncident[] = runner.reset();
  // The top-level dates of an empty feed need some instant; the moment the world was set is stable
  // (a body that changed every second would defeat ETags).
  let worldSetMs = now();

  // Rendering a 120-incident history formats some 700 timestamps (~12 ms), while choosing what a
  // view shows is cheap. A body is reused while its view holds the very same incident objects:
  // the world is replaced, never mutated, on every change (world-edits.ts copies).
  const rendered = new Map<FeedEndpoint, { inputs: readonly unknown[]; doc: FeedDocument }>();
  const memo = (endpoint: FeedEndpoint, inputs: readonly unknown[], render: () => FeedDocument): FeedDocument => {
    const hit = rendered.get(endpoint);
    if (hit && hit.inputs.length === inputs.length && hit.inputs.every((input, i) => input === inputs[i])) return hit.doc;
    const doc = render();
    rendered.set(endpoint, { inputs, doc });
    return doc;
  };

  return {
    style,
    conditional: options.conditional ?? true,
    historyWindowDays,
    faults: createFeedFaultBook(),
    requests: createRequestLog(),
    held: createHeldRequests(),
    now,
    setClock(nowMs) {
      fixedNowMs = nowMs;
    },
    incidents: () => world.map(cloneIncident),
    get step() {
      return runner.step;
    },
    get cycle() {
      return runner.cycle;
    },
    stepCount: runner.stepCount,
    advance() {
      world = runner.advance(world, now());
      return runner.step;
    },
    reset() {
      world = runner.reset();
      worldSetMs = now();
    },
    replaceIncidents(incidents) {
      world = incidents.map(cloneIncident);
      worldSetMs = now();
    },
    upsertIncident(incident) {
      const isNew = !world.some((i) => i.id === incident.id);
      world = isNew ? [...world, cloneIncident(incident)] : world.map((i) => (i.id === incident.id ? cloneIncident(incident) : i));
      return isNew;
    },
    render(endpoint) {
      switch (endpoint) {
        case 'v2/current':
          return memo(endpoint, [world, worldSetMs], () => renderCurrentV2(currentV2View(world, worldSetMs), style));
        case 'v1/current': {
          const view = currentV1View(world, now(), worldSetMs);
          const inputs = view.kind === 'incident' ? [view.incident] : [view.dateCreatedMs, view.dateUpdatedMs];
          return memo(endpoint, inputs, () => renderCurrentV1(view, style));
        }
        case 'v2/history':
        case 'v1/history': {
          const view = historyView(world, now(), historyWindowDays);
          return memo(endpoint, view, () => renderHistory(view, style));
        }
      }
    },
  };
}
