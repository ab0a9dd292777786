/** The simulated SCIM directory's public surface. */
export { createSimulatedScim, type SimulatedScim } from './app.ts';
export { startSimulatedScim, type RunningSimulatedScim, type StartSimulatedScimOptions } from './server.ts';
export { DEFAULT_SCIM_TOKEN, type SimulatedScimOptions } from './state.ts';
export { SCIM_RATE_LIMITS } from './rate-limits.ts';
export type { ScimFaultSpec, ScimFault, ScimEndpoint } from './faults.ts';
