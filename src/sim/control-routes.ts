/** The `/_sim` control API: lets tests and the demo drive the world, the clock, faults and the request log. */
import { Hono } from 'hono';
import type { z } from 'zod';
import { clockSchema, faultSpecSchema, vendorIncidentListSchema, vendorIncidentSchema } from './control-schemas.ts';
import type { Fault } from './faults.ts';
import type { VendorState } from './vendor-state.ts';
import { toWireIncident } from './wire.ts';

export const CONTROL_PREFIX = '/_sim';

/** What GET /_sim/state answers; incidents are in the vendor's (modern) shape, ready to PUT back. */
export type SimSnapshot = {
  step: number;
  stepCount: number;
  cycle: number;
  nowMs: number;
  incidents: Record<string, unknown>[];
  faults: Fault[];
};

export function stateSnapshot(state: VendorState): SimSnapshot {
  return {
    step: state.step,
    stepCount: state.stepCount,
    cycle: state.cycle,
    nowMs: state.now(),
    incidents: state.incidents().map((i) => toWireIncident(i, { style: 'modern', idAsString: false })),
    faults: state.faults.list(),
  };
}

/** A request body that is not what the route expects; answered as 400 by the one error handler. */
export class InvalidRequestError extends Error {
  constructor(readonly detail: string) {
    super(`invalid request: ${detail}`);
    this.name = 'InvalidRequestError';
  }
}

export type ErrorBody = { ok: false; error: 'invalid_request' | 'not_found' | 'conflict' | 'internal'; detail: string };

async function parseJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await request.json();
  } catch (cause) {
    throw new InvalidRequestError(`body is not JSON (${cause instanceof Error ? cause.message : String(cause)})`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`).join('; ');
    throw new InvalidRequestError(detail);
  }
  return parsed.data;
}

/** The control app, answering under `/_sim` (a separate app so its 404 and errors are JSON). */
export function controlRoutes(state: VendorState): Hono {
  const app = new Hono().basePath(CONTROL_PREFIX);

  app.get('/state', (c) => c.json(stateSnapshot(state)));

  app.post('/advance', (c) => c.json({ step: state.advance(), cycle: state.cycle }));

  app.post('/reset', (c) => {
    state.reset();
    return c.json({ step: state.step, cycle: state.cycle });
  });

  app.put('/incidents', async (c) => {
    const incidents = await parseJson(c.req.raw, vendorIncidentListSchema);
    state.replaceIncidents(incidents);
    return c.json({ ok: true, count: incidents.length });
  });

  app.post('/incidents', async (c) => {
    const incident = await parseJson(c.req.raw, vendorIncidentSchema);
    const created = state.upsertIncident(incident);
    return c.json({ ok: true, created }, created ? 201 : 200);
  });

  app.put('/clock', async (c) => {
    const { nowMs } = await parseJson(c.req.raw, clockSchema);
    state.setClock(nowMs);
    return c.json({ nowMs: state.now(), fixed: true });
  });

  app.delete('/clock', (c) => {
    state.setClock(null);
    return c.json({ nowMs: state.now(), fixed: false });
  });

  app.get('/faults', (c) => c.json({ faults: state.faults.list() }));

  app.post('/faults', async (c) => {
    const fault = state.faults.add(await parseJson(c.req.raw, faultSpecSchema));
    if (!fault) return c.json({ ok: false, error: 'conflict', detail: 'too many faults registered; DELETE /_sim/faults first' } satisfies ErrorBody, 409);
    return c.json(fault, 201);
  });

  app.delete('/faults', (c) => {
    state.faults.clear();
    return c.json({ ok: true });
  });

  app.get('/requests', (c) => c.json({ requests: state.requests.list() }));

  app.delete('/requests', (c) => {
    state.requests.clear();
    return c.json({ ok: true });
  });

  app.notFound((c) => c.json<ErrorBody>({ ok: false, error: 'not_found', detail: `no control route ${c.req.method} ${c.req.path}` }, 404));

  app.onError((err, c) => {
    if (err instanceof InvalidRequestError) {
      return c.json<ErrorBody>({ ok: false, error: 'invalid_request', detail: err.detail }, 400);
    }
    return c.json<ErrorBody>({ ok: false, error: 'internal', detail: err.message }, 500);
  });

  return app;
}
