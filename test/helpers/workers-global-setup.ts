/**
 * Node side of the workers project: the simulated vendor and a webhook receiver on loopback, for
 * the Worker inside workerd to poll and deliver to. Their URLs reach the tests through `inject`.
 * The receiver verifies signatures here, on Node, with the standardwebhooks package: the oracle
 * is not the code under test.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestProject } from 'vitest/node';
import { startSimulatedIdp } from '../../src/sim/idp/server.ts';
import { startSimulatedScim } from '../../src/sim/scim/server.ts';
import { keepIdleConnections } from '../../src/sim/serve-simulator.ts';
import { startTestVendor } from './service.ts';

import type {} from '../workers/provided-context.ts';

type Received = { path: string; headers: IncomingHttpHeaders; body: string };
/** Plenty for the tests, and a bound: the receiver lives as long as the test run. */
const MAX_KEPT = 10_000;

/** POST /hook/<name> records; POST /_verify?path=/hook/<name> {secret} verifies what that path got; DELETE /_received forgets. */
export function startVerifyingReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  let received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'DELETE' && url.pathname === '/_received') {
        received = [];
        return answer(200, { ok: true });
      }
      if (req.method === 'POST' && url.pathname === '/_verify') {
        const { secret } = JSON.parse(body) as { secret: string };
        const verifier = new Webhook(secret);
        const path = url.searchParams.get('path');
        const deliveries = received
          .filter((r) => r.path === path)
          .map((r) => {
            try {
              const payload = verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; data: { incident: { id: string } } };
              return { verified: true, id: String(r.headers['webhook-id']), type: payload.type, incident: payload.data.incident.id };
            } catch (error) {
              return { verified: false, id: String(r.headers['webhook-id']), error: String(error) };
            }
          });
        return answer(200, { deliveries });
      }
      if (req.method === 'POST' && url.pathname.startsWith('/hook/')) {
        if (received.length < MAX_KEPT) received.push({ path: url.pathname, headers: req.headers, body });
        return answer(200, { ok: true });
      }
      answer(404, { ok: false });
    });
  });
  keepIdleConnections(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A history window wide enough for fixtures dated in 2026-10 whatever today is.
  const vendor = await startTestVendor({ historyWindowDays: 100_000 });
  const receiver = await startVerifyingReceiver();
  // The identity provider MCP_AUTH=ema trusts, whose keys the Worker fetches with jose.
  const idp = await startSimulatedIdp();
  // The SCIM directory group subscriptions sync from.
  const scim = await startSimulatedScim({ host: '127.0.0.1', port: 0 });
  project.provide('simUrl', vendor.url);
  project.provide('scimUrl', scim.url);
  project.provide('scimToken', scim.token);
  project.provide('receiverUrl', receiver.url);
  project.provide('idpUrl', idp.url);
  return async () => {
    await scim.close();
    await idp.close();
    await receiver.close();
    await vendor.close();
  };
}
