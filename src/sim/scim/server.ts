/** Runs the simulated SCIM service on a real Node HTTP server (loopback, ephemeral port by default). */
import { serveSimulator, type ListenOptions } from '../serve-simulator.ts';
import { createSimulatedScim, type SimulatedScim } from './app.ts';
import type { SimulatedScimOptions } from './state.ts';

export type StartSimulatedScimOptions = SimulatedScimOptions & ListenOptions;

export type RunningSimulatedScim = {
  /** Base URL without a trailing slash; SCIM lives at `${url}/scim/v2` and `${url}/scim/v1`. */
  url: string;
  port: number;
  token: string;
  scim: SimulatedScim;
  close(): Promise<void>;
};

export async function startSimulatedScim(options: StartSimulatedScimOptions = {}): Promise<RunningSimulatedScim> {
  const { port, host, ...scimOptions } = options;
  const scim = createSimulatedScim(scimOptions);
  return { ...(await serveSimulator(scim, { port, host })), token: scim.state.token, scim };
}
