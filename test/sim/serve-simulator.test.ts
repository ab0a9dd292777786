/**
 * The simulators keep an idle keep-alive connection open well past Node's five-second default:
 * workerd reuses a pooled connection without knowing the server may have closed it, and a request
 * sent as the server closed it failed inside the Worker with "Network connection lost".
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startSimulatedVendor } from '../../src/sim/server.ts';

/** Node's own keepAliveTimeout, which closed idle connections under the Worker's feet. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

it('answers a second request on a connection left idle past Node default keep-alive', async () => {
  const sim = await startSimulatedVendor({ scenario: { name: 'empty', initialWorld: () => [], steps: [], loop: false } });
  closers.push(() => sim.close());
  const { hostname, port } = new URL(sim.url);
  const socket = connect(Number(port), hostname);
  closers.push(async () => void socket.destroy());
  socket.setEncoding('utf8');
  let received = '';
  let closed = false;
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  const request = `GET /api/v2.0.0/current HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`;
  const answers = () => received.match(/HTTP\/1\.1 200 /g)?.length ?? 0;

  socket.write(request);
  await expect.poll(answers, { timeout: 10_000 }).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, NODE_DEFAULT_KEEP_ALIVE_MS + 1_000));
  expect(closed).toBe(false);
  socket.write(request);
  await expect.poll(answers, { timeout: 10_000 }).toBe(2);
}, 30_000);
