/** Runs the simulated vendor on a real Node HTTP server (loopback, ephemeral port by default). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulatedVendor, type SimulatedVendor, type SimulatedVendorOptions } from './app.ts';

export type StartSimulatedVendorOptions = SimulatedVendorOptions & {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
};

export type RunningSimulatedVendor = {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:43123 */
  url: string;
  port: number;
  vendor: SimulatedVendor;
  close(): Promise<void>;
};

export function startSimulatedVendor(options: StartSimulatedVendorOptions = {}): Promise<RunningSimulatedVendor> {
  const { port = 0, host = '127.0.0.1', ...vendorOptions } = options;
  const vendor = createSimulatedVendor(vendorOptions);
  return new Promise((resolve, reject) => {
    // serve() uses node:http's createServer unless told otherwise, so this is an http.Server.
    const server = serve({ fetch: vendor.fetch, port, hostname: host }) as Server;
    server.once('error', (err) => {
      vendor.close();
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
        vendor,
        close() {
          closing ??= new Promise<void>((done) => {
            vendor.close();
            server.close(() => done());
            // Held-open requests and keep-alive sockets would otherwise keep close() waiting.
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
