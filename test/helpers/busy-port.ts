/** A loopback port some other server already listens on: what a busy port looks like to the command. */
import { createServer } from 'node:http';

export type BusyPort = { port: number; close(): Promise<void> };

export async function occupyPort(): Promise<BusyPort> {
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  return {
    port: (squatter.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => squatter.close(() => resolve())),
  };
}
