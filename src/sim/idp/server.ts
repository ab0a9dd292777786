/** Runs the simulated identity provider on a real Node HTTP server (loopback, ephemeral port by default). */
import { serveSimulator, type ListenOptions } from '../serve-simulator.ts';
import { createSimulatedIdp, type SimulatedIdp, type SimulatedIdpOptions } from './app.ts';

export type StartSimulatedIdpOptions = SimulatedIdpOptions & ListenOptions;

export type RunningSimulatedIdp = {
  /** EMA_ISSUER: the origin, without a trailing slash (unless `issuer` was given). */
  url: string;
  /** EMA_JWKS_URL. */
  jwksUrl: string;
  port: number;
  idp: SimulatedIdp;
  close(): Promise<void>;
};

export async function startSimulatedIdp(options: StartSimulatedIdpOptions = {}): Promise<RunningSimulatedIdp> {
  const { port, host, ...idpOptions } = options;
  const idp = createSimulatedIdp(idpOptions);
  const served = await serveSimulator(idp, { port, host });
  return { ...served, jwksUrl: `${served.url}/.well-known/jwks.json`, idp };
}
