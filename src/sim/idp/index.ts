/** The simulated identity provider's public surface. */
export {
  createSimulatedIdp,
  HUGE_JWKS_BYTES,
  ID_JAG_LIFETIME_SECONDS,
  JWKS_FAULTS,
  type JwksFault,
  type SimulatedIdp,
  type SimulatedIdpOptions,
} from './app.ts';
export { startSimulatedIdp, type RunningSimulatedIdp, type StartSimulatedIdpOptions } from './server.ts';
