/** Runs the simulated Web API on a real Node HTTP server (loopback, ephemeral port by default). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulatedWebApi, type SimulatedWebApi, type SimulatedWebApiOptions } from './app.tsx';

export type StartSimulatedWebApiOptions = SimulatedWebApiOptions & { port?: number; host?: string };

export type RunningSimulatedWebApi = {
  /** APP_API_URL for the app: base URL without a trailing slash, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  webApi: SimulatedWebApi;
  close(): Promise<void>;
};

export function startSimulatedWebApi(options: StartSimulatedWebApiOptions = {}): Promise<RunningSimulatedWebApi> {
  const { port = 0, host = '127.0.0.1', ...webApiOptions } = options;
  const webApi = createSimulatedWebApi(webApiOptions);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: webApi.fetch, port, hostname: host }) as Server;
    server.once('error', (err) => {
      webApi.close();
      reject(err);
    });
    server.once('listening', () => {
      const actualPort = (server.address() as AddressInfo).port;
      // A wildcard address is where to listen, not where to connect: the URL names loopback.
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      const urlHost = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${urlHost}:${actualPort}`,
        port: actualPort,
        webApi,
        close() {
          closing ??= new Promise<void>((done) => {
            webApi.close();
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
