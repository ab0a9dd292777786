/** Runs the simulated SCIM service on a real Node HTTP server (loopback, ephemeral port by default). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulatedScim, type SimulatedScim } from './app.ts';
import type { SimulatedScimOptions } from './state.ts';

export type StartSimulatedScimOptions = SimulatedScimOptions & { port?: number; host?: string };

export type RunningSimulatedScim = {
  /** Base URL without a trailing slash; SCIM lives at `${url}/scim/v2` and `${url}/scim/v1`. */
  url: string;
  port: number;
  token: string;
  scim: SimulatedScim;
  close(): Promise<void>;
};

export function startSimulatedScim(options: StartSimulatedScimOptions = {}): Promise<RunningSimulatedScim> {
  const { port = 0, host = '127.0.0.1', ...scimOptions } = options;
  const scim = createSimulatedScim(scimOptions);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: scim.fetch, port, hostname: host }) as Server;
    server.once('error', (err) => {
      scim.close();
      reject(err);
    });
    server.once('listening', () => {
      const actualPort = (server.address() as AddressInfo).port;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      const urlHost = shownHost.includes(':') ? `[${shownHost}]` : shownHost;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${urlHost}:${actualPort}`,
        port: actualPort,
        token: scim.state.token,
        scim,
        close() {
          closing ??= new Promise<void>((done) => {
            scim.close();
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
