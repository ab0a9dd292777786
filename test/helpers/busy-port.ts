/** A loopback port some other server already listens on: what a busy port looks like to the command. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';

export type BusyPort = { port: number; close(): Promise<void> };

export async function occupyPort(): Promise<BusyPort> {
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  return {
    port: (squatter.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => squatter.close(() => resolve())),
  };
}

/**
 * A busy loopback port whose `freeBefore` lower neighbours were free a moment ago, for a command
 * that listens on ports in a row and must meet the busy one last. They lie below the kernel's
 * ephemeral range (ip_local_port_range), where only a port asked for by number is ever taken. In
 * the range, every listen on port 0 and every outgoing connection takes one: on Linux connections
 * get even ports and keep them in TIME_WAIT for a minute after they close, and a listener cannot
 * have such a port, so beside a busy suite the even neighbours of an odd port 0 were often taken.
 */
export async function occupyPortAfterFree(freeBefore: number): Promise<BusyPort> {
  const below = ephemeralPortsFrom() - freeBefore - 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = LOWEST_CHOSEN_PORT + Math.floor(Math.random() * (below - LOWEST_CHOSEN_PORT));
    const held: Server[] = [];
    for (let port = first; port <= first + freeBefore; port++) {
      const server = await listenOn(port);
      if (!server) break;
      held.push(server);
    }
    const squatter = held.length === freeBefore + 1 ? held.pop()! : undefined;
    await Promise.all(held.map(closeServer));
    if (squatter) return { port: first + freeBefore, close: () => closeServer(squatter) };
  }
  throw new Error(`found no ${freeBefore + 1} free loopback ports in a row below ${below + freeBefore + 1}`);
}

/** Above the ports services are given by default (4010, 8787…). */
const LOWEST_CHOSEN_PORT = 10_000;

/** Where Linux starts handing out ports of its own (its default when it does not say). */
function ephemeralPortsFrom(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

function listenOn(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
