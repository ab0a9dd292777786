/**
 * A simulated status page in the Atlassian Statuspage v2 format: `/api/v2/summary.json`,
 * `/incidents.json` and `/scheduled-maintenances.json` with conditional GET and the main simulated
 * vendor's faults, plus a `/_sim` control API (state, advance, reset, clock, faults, requests).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { documentResponse } from '../conditional.ts';
import { clockSchema } from '../control-schemas.ts';
import { createFaultBook } from '../fault-book.ts';
import { faultResponse, NOT_FOUND_TEXT, REDIRECTED_PREFIX } from '../fault-responses.ts';
import { FAULT_KINDS, FEED_FAULTS_MAX, type Fault, type FaultKind } from '../faults.ts';
import { createHeldRequests } from '../held-requests.ts';
import { OVERSIZE_BYTES } from '../oversize-body.ts';
import { createRequestLog, type RequestLogEntry } from '../request-log.ts';
import { serveSimulator, type ListenOptions } from '../serve-simulator.ts';
import type { FeedDocument } from '../wire.ts';
import { oversizeSpBody, renderSpEndpoint, type SpEndpoint } from './render.ts';
import { initialSpWorld, spStory, type SpStep } from './story.ts';
import type { SpSimWorld } from './world.ts';

export const SP_PATHS: Readonly<Record<string, SpEndpoint>> = {
  '/api/v2/summary.json': 'summary',
  '/api/v2/incidents.json': 'incidents',
  '/api/v2/scheduled-maintenances.json': 'scheduled-maintenances',
};

export const SP_FAULT_TARGETS = ['summary', 'incidents', 'scheduled-maintenances', '*'] as const;
export type SpFaultTarget = (typeof SP_FAULT_TARGETS)[number];
export type SpFault = Omit<Fault, 'target'> & { target: SpFaultTarget };

const spFaultSpecSchema = z
  .object({
    target: z.enum(SP_FAULT_TARGETS),
    kind: z.enum(FAULT_KINDS),
    times: z.number().int().positive().optional(),
    status: z.number().int().min(200).max(599).optional(),
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
    body: z.string().max(100_000_000).optional(),
  })
  .refine((spec) => (spec.kind === 'body') === (spec.body !== undefined), {
    path: ['body'],
    message: 'a body fault needs a body, and only a body fault takes one',
  });

export type SpFaultSpec = { target: SpFaultTarget; kind: FaultKind; times?: number; status?: number; delayMs?: number; body?: string };

export type SimulatedStatuspageOptions = {
  /** The page's name (`page.name`); default "Acme Cloud". */
  name?: string;
  /** Defaults to the story of this module. */
  steps?: readonly SpStep[];
  /** The page before its first step; defaults to the story's own page (named by `name`). */
  initial?: (nowMs: number) => SpSimWorld;
  /** Send ETag and Last-Modified and answer 304; default true. */
  conditional?: boolean;
  /** Advance one step on this interval; off when absent or 0. */
  autoAdvanceMs?: number;
  clock?: () => number;
};

export type SpSnapshot = { step: number; stepCount: number; nextStep: string | null; nowMs: number; world: SpSimWorld; faults: SpFault[] };

export type SimulatedStatuspage = {
  readonly app: Hono;
  fetch(request: Request): Response | Promise<Response>;
  snapshot(): SpSnapshot;
  /** Applies the next step; the step number after it (unchanged once the story is told). */
  advance(): number;
  reset(): void;
  setClock(nowMs: number | null): void;
  /** Null when FEED_FAULTS_MAX are registered. */
  addFault(spec: SpFaultSpec): SpFault | null;
  clearFaults(): void;
  requests(): RequestLogEntry[];
  close(): void;
};

export function createSimulatedStatuspage(options: SimulatedStatuspageOptions = {}): SimulatedStatuspage {
  const baseClock = options.clock ?? Date.now;
  let fixedNowMs: number | null = null;
  const now = () => fixedNowMs ?? baseClock();
  const steps = options.steps ?? spStory;
  const initial = options.initial ?? ((nowMs: number) => initialSpWorld(nowMs, options.name));
  const conditional = options.conditional ?? true;
  const faults = createFaultBook<SpFault>(FEED_FAULTS_MAX);
  const requests = createRequestLog();
  const held = createHeldRequests();

  let world = initial(now());
  let step = 0;
  let lastStepMs = Number.NEGATIVE_INFINITY;
  // Rendered once per world: the world is replaced, never mutated, by every step.
  const rendered = new Map<SpEndpoint, { world: SpSimWorld; doc: FeedDocument }>();
  const render = (endpoint: SpEndpoint): FeedDocument => {
    const hit = rendered.get(endpoint);
    if (hit?.world === world) return hit.doc;
    const doc = renderSpEndpoint(endpoint, world);
    rendered.set(endpoint, { world, doc });
    return doc;
  };

  const advance = (): number => {
    const next = steps[step];
    if (!next) return step;
    // Whole milliseconds, strictly increasing: steps a test takes at once still get ordered times.
    const nowMs = Math.max(now(), lastStepMs + 1000);
    lastStepMs = nowMs;
    world = next.apply(world, nowMs);
    step += 1;
    return step;
  };
  const reset = () => {
    world = initial(now());
    step = 0;
    lastStepMs = Number.NEGATIVE_INFINITY;
  };
  const addFault = (spec: SpFaultSpec) =>
    faults.add({
      target: spec.target,
      kind: spec.kind,
      times: spec.times ?? null,
      status: spec.status ?? null,
      delayMs: spec.delayMs ?? null,
      body: spec.body ?? null,
    });
  const snapshot = (): SpSnapshot => ({ step, stepCount: steps.length, nextStep: steps[step]?.name ?? null, nowMs: now(), world, faults: faults.list() });

  const app = new Hono();
  for (const [path, endpoint] of Object.entries(SP_PATHS)) {
    app.get(path, async (c) => {
      const entry = requests.record({
        atMs: now(),
        method: c.req.method,
        path,
        ifNoneMatch: c.req.header('if-none-match') !== undefined,
        ifModifiedSince: c.req.header('if-modified-since') !== undefined,
      });
      const fault = faults.take((f) => f.target === '*' || f.target === endpoint);
      entry.fault = fault?.kind ?? null;
      const response = fault
        ? await faultResponse(
            { ...fault, target: '*' },
            {
              request: c.req.raw,
              pathAndQuery: new URL(c.req.url).pathname,
              document: () => render(endpoint),
              oversizeBody: () => oversizeSpBody(world, OVERSIZE_BYTES),
              conditional,
              held,
            },
          )
        : await documentResponse(c.req.raw, render(endpoint), conditional);
      if (fault?.kind !== 'timeout') entry.status = response.status;
      return response;
    });
    app.get(`${REDIRECTED_PREFIX}${path}`, (c) => documentResponse(c.req.raw, render(endpoint), conditional));
  }

  app.get('/_sim/state', (c) => c.json(snapshot()));
  app.post('/_sim/advance', (c) => c.json({ step: advance(), stepCount: steps.length }));
  app.post('/_sim/reset', (c) => {
    reset();
    return c.json({ step });
  });
  app.put('/_sim/clock', async (c) => {
    const parsed = clockSchema.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) return c.json({ ok: false, error: 'invalid_request', detail: 'expected {"nowMs": <epoch ms>}' }, 400);
    fixedNowMs = parsed.data.nowMs;
    return c.json({ nowMs: now(), fixed: true });
  });
  app.delete('/_sim/clock', (c) => {
    fixedNowMs = null;
    return c.json({ nowMs: now(), fixed: false });
  });
  app.get('/_sim/faults', (c) => c.json({ faults: faults.list() }));
  app.post('/_sim/faults', async (c) => {
    const parsed = spFaultSpecSchema.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) return c.json({ ok: false, error: 'invalid_request', detail: z.prettifyError(parsed.error) }, 400);
    const fault = addFault(parsed.data);
    if (!fault) return c.json({ ok: false, error: 'conflict', detail: 'too many faults registered; DELETE /_sim/faults first' }, 409);
    return c.json(fault, 201);
  });
  app.delete('/_sim/faults', (c) => {
    faults.clear();
    return c.json({ ok: true });
  });
  app.get('/_sim/requests', (c) => c.json({ requests: requests.list() }));
  app.delete('/_sim/requests', (c) => {
    requests.clear();
    return c.json({ ok: true });
  });
  app.notFound(() => new Response(NOT_FOUND_TEXT, { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }));

  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.autoAdvanceMs !== undefined && options.autoAdvanceMs > 0) {
    timer = setInterval(advance, options.autoAdvanceMs);
    (timer as { unref?: () => void }).unref?.();
  }

  return {
    app,
    fetch: (request) => app.fetch(request),
    snapshot,
    advance,
    reset,
    setClock: (nowMs) => {
      fixedNowMs = nowMs;
    },
    addFault,
    clearFaults: () => faults.clear(),
    requests: () => requests.list(),
    close() {
      clearInterval(timer);
      timer = undefined;
      held.releaseAll();
    },
  };
}

export type RunningSimulatedStatuspage = { url: string; port: number; page: SimulatedStatuspage; close(): Promise<void> };

/** Serves a simulated page on loopback (an ephemeral port by default). */
export async function startSimulatedStatuspage(options: SimulatedStatuspageOptions & ListenOptions = {}): Promise<RunningSimulatedStatuspage> {
  const { port, host, ...pageOptions } = options;
  const page = createSimulatedStatuspage(pageOptions);
  return { ...(await serveSimulator(page, { port, host })), page };
}
