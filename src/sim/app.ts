/** The simulated vendor as a runtime-free Hono app: the status feed plus the `/_sim` control API. */
import { Hono } from 'hono';
import { CONTROL_PREFIX, controlRoutes, stateSnapshot, type SimSnapshot } from './control-routes.ts';
import { REDIRECTED_PREFIX } from './fault-responses.ts';
import type { Fault, FaultSpec } from './faults.ts';
import { feedRoutes } from './feed-routes.ts';
import type { RequestLogEntry } from './request-log.ts';
import { createVendorState, type SimulatedVendorOptions, type VendorState } from './vendor-state.ts';
import type { SimIncident } from './world.ts';

export type { SimulatedVendorOptions } from './vendor-state.ts';

export type SimulatedVendor = {
  readonly app: Hono;
  fetch(request: Request): Response | Promise<Response>;
  /** The same state the control API drives, for in-process callers. */
  readonly state: VendorState;
  snapshot(): SimSnapshot;
  advance(): number;
  reset(): void;
  setIncidents(incidents: readonly SimIncident[]): void;
  upsertIncident(incident: SimIncident): boolean;
  /** A fixed "now", or null for the configured clock. */
  setClock(nowMs: number | null): void;
  /** Null when FEED_FAULTS_MAX are registered. */
  addFault(spec: FaultSpec): Fault | null;
  clearFaults(): void;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** Stops auto-advance and ends every held-open response (timeouts, slow bodies). */
  close(): void;
};

function isControlPath(path: string): boolean {
  if (path.startsWith(`${REDIRECTED_PREFIX}/`)) return false; // the redirect hop is a feed response
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

export function createSimulatedVendor(options: SimulatedVendorOptions = {}): SimulatedVendor {
  const state = createVendorState(options);
  const feed = feedRoutes(state);
  const control = controlRoutes(state);

  // Two separate apps so the feed's request log and 404 never see control traffic.
  const app = new Hono();
  app.all('*', (c) => (isControlPath(c.req.path) ? control : feed).fetch(c.req.raw));

  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.autoAdvanceMs !== undefined && options.autoAdvanceMs > 0) {
    timer = setInterval(() => state.advance(), options.autoAdvanceMs);
    // A demo's timer must not keep a finished process (or a test worker) alive.
    (timer as { unref?: () => void }).unref?.();
  }

  return {
    app,
    fetch: (request) => app.fetch(request),
    state,
    snapshot: () => stateSnapshot(state),
    advance: () => state.advance(),
    reset: () => state.reset(),
    setIncidents: (incidents) => state.replaceIncidents(incidents),
    upsertIncident: (incident) => state.upsertIncident(incident),
    setClock: (nowMs) => state.setClock(nowMs),
    addFault: (spec) => state.faults.add(spec),
    clearFaults: () => state.faults.clear(),
    requests: () => state.requests.list(),
    clearRequests: () => state.requests.clear(),
    close() {
      clearInterval(timer);
      timer = undefined;
      state.held.releaseAll();
    },
  };
}
