/** The simulated SCIM service as a runtime-free Hono app: /scim/v1, /scim/v2 and the `/_sim` control API. */
import { Hono } from 'hono';
import { scimControlRoutes, SCIM_CONTROL_PREFIX } from './control-routes.ts';
import { errorResponse } from './errors.ts';
import { handleScimRequest } from './scim-api.ts';
import { createScimState, type ScimState, type SimulatedScimOptions } from './state.ts';

export type SimulatedScim = {
  readonly app: Hono;
  readonly state: ScimState;
  fetch(request: Request): Response | Promise<Response>;
  /** Ends every held-open response (timeout faults). */
  close(): void;
};

export function createSimulatedScim(options: SimulatedScimOptions = {}): SimulatedScim {
  const state = createScimState(options);
  const control = scimControlRoutes(state);
  const app = new Hono();
  app.all(`${SCIM_CONTROL_PREFIX}/*`, (c) => control.fetch(c.req.raw));
  app.all('/scim/*', (c) => handleScimRequest(state, c.req.raw));
  // Outside /scim there is no SCIM endpoint: the spec's bad_endpoint, in the v2.0 body.
  app.notFound(() => errorResponse('v2', 'bad_endpoint', 404));
  return {
    app,
    state,
    fetch: (request) => app.fetch(request),
    close: () => state.held.releaseAll(),
  };
}
