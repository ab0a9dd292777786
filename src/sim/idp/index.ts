/** The simulated identity provider's public surface. */
export { createSimulatedIdp, ID_JAG_LIFETIME_SECONDS, type SimulatedIdp, type SimulatedIdpOptions } from './app.ts';
export { startSimulatedIdp, type RunningSimulatedIdp, type StartSimulatedIdpOptions } from './server.ts';
