/** Runs the simulated Web API on a real Node HTTP server (loopback, ephemeral port by default). */
import { serveSimulator, type ListenOptions } from '../serve-simulator.ts';
import { createSimulatedWebApi, type SimulatedWebApi, type SimulatedWebApiOptions } from './app.tsx';

export type StartSimulatedWebApiOptions = SimulatedWebApiOptions & ListenOptions;

export type RunningSimulatedWebApi = {
  /** APP_API_URL for the app: base URL without a trailing slash, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  webApi: SimulatedWebApi;
  close(): Promise<void>;
};

export async function startSimulatedWebApi(options: StartSimulatedWebApiOptions = {}): Promise<RunningSimulatedWebApi> {
  const { port, host, ...webApiOptions } = options;
  const webApi = createSimulatedWebApi(webApiOptions);
  return { ...(await serveSimulator(webApi, { port, host })), webApi };
}
