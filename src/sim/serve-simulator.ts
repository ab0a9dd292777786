/**
 * Serves one simulator (the status vendor, the Web API, the SCIM directory) on a real Node HTTP
 * server, loopback and an ephemeral port by default: the one place that listens, names the URL and
 * closes, so the three simulators start and stop alike.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export type ListenOptions = {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
};

export type ServedSimulator = { url: string; port: number; close(): Promise<void> };

/**
 * How long a simulator keeps an idle keep-alive connection: ten minutes, not Node's five seconds.
 * workerd pools its connections and reuses an idle one without knowing the server may close it: a
 * request sent as Node closed the socket failed inside the Worker with "Network connection lost",
 * which a loaded machine made frequent. A client closes its own idle connections long before this.
 */
export const SIM_KEEP_ALIVE_MS = 10 * 60_000;

/** Keeps `server`'s idle keep-alive connections for SIM_KEEP_ALIVE_MS: for every loopback server workerd talks to. */
export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = SIM_KEEP_ALIVE_MS;
}

/** `simulator.close()` runs when the server fails to listen and when it is closed. */
export function serveSimulator(
  simulator: { fetch: (request: Request) => Response | Promise<Response>; close(): void },
  options: ListenOptions,
): Promise<ServedSimulator> {
  const { port = 0, host = '127.0.0.1' } = options;
  return new Promise((resolve, reject) => {
    // serve() uses node:http's createServer unless told otherwise, so this is an http.Server.
    const server = serve({ fetch: simulator.fetch, port, hostname: host }) as Server;
    keepIdleConnections(server);
    server.once('error', (err) => {
      simulator.close();
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
        close() {
          closing ??= new Promise<void>((done) => {
            simulator.close();
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
