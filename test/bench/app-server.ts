/**
 * What the HTTP benchmarks share: the real app and a bare constant route served by one server (so
 * the baseline pays the same sockets, parsing and dispatch as the app), and the client that
 * measures them from another process (http-client.ts).
 */
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Poller } from '../../src/app/poller.ts';
import type { SqliteConnection } from '../../src/adapters/sqlite-connection.ts';
import type { Clock } from '../../src/core/ports.ts';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import { expectBench, silentLogger } from './harness.ts';
import type { HotPathJob, HotPathSamples } from './hot-paths-client.ts';
import type { ClientJob } from './http-client.ts';

export const BASELINE_PATH = '/api/constants';
/** A bare Hono route answering `baselinePage()` as HTML: the same bytes as a page, without the app. */
export const BASELINE_PAGE_PATH = '/bench/baseline.html';
/**
 * A bare route answering `baselineBulk()` as JSON, sent as the response cache sends a built page
 * (its UTF-8 bytes, encoded on each request, in a plain Response): what moving a body of that size
 * costs on its own, without the app or the query.
 */
export const BASELINE_BULK_PATH = '/bench/constant.json';

/** The app never polls in a benchmark; the admin route that would is not called. */
const idlePoller: Poller = { pollOnce: async () => ({ status: 'skipped', reason: 'another poll is running' }) };

export type ServedApp = { url: string; close(): Promise<void> };

export type BaselineOptions = {
  startedAt: number;
  baselineBody?: unknown;
  /** Read on every request, so a benchmark can set it to a page it has just fetched. */
  baselinePage?: () => string;
  /** Read on every request (BASELINE_BULK_PATH), so a benchmark can set it to a body it has just fetched. */
  baselineBulk?: () => string;
  /**
   * READ_BUDGET_MS_PER_SECOND; by default the most there is, so a latency benchmark's one client
   * may keep the whole server busy building answers. The search-load benchmark keeps the default.
   */
  readBudgetMsPerSecond?: number;
  /**
   * The app's clock; the real one by default. Pages move with it (a 90-day availability ends now),
   * so a benchmark that needs the same bytes, and ETag, for longer than the page cache's minute
   * stops it.
   */
  clock?: Clock;
};

export async function serveAppWithBaseline(connection: SqliteConnection, options: BaselineOptions): Promise<ServedApp> {
  const app = createApp(
    await buildAppDeps(
      // Each client keyed by its socket's address, as serve keys it: a section can give its clients
      // addresses of their own (127.0.0.x), so one's read budget is not another's.
      { ...(await nodeAppPorts(connection, silentLogger, { clock: options.clock })), poller: idlePoller, peerAddress: (c) => getConnInfo(c).remote.address },
      {
        startedAt: options.startedAt,
        env: { READ_BUDGET_MS_PER_SECOND: String(options.readBudgetMsPerSecond ?? 1000) },
      },
    ),
  );
  const body = options.baselineBody ?? { ok: true };
  const page = options.baselinePage ?? (() => '');
  const bulk = options.baselineBulk ?? (() => '');
  const utf8 = new TextEncoder();
  const baseline = new Hono()
    .get(BASELINE_PATH, (c) => c.json(body))
    .get(BASELINE_PAGE_PATH, (c) => c.html(page()))
    .get(BASELINE_BULK_PATH, () => new Response(utf8.encode(bulk()), { status: 200, headers: { 'content-type': 'application/json' } }));
  const isBaseline = (path: string) => path === BASELINE_PATH || path === BASELINE_PAGE_PATH || path === BASELINE_BULK_PATH;
  const server = serve({
    fetch: (request, env) => (isBaseline(new URL(request.url).pathname) ? baseline.fetch(request) : app.fetch(request, env)),
    port: 0,
    hostname: '127.0.0.1',
  }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const CLIENT = fileURLToPath(new URL('./http-client.ts', import.meta.url));
const CONCURRENT_CLIENT = fileURLToPath(new URL('./hot-paths-client.ts', import.meta.url));

/** Runs the job in a client process and returns its samples by case name. */
export async function runClient(job: ClientJob): Promise<Map<string, number[]>> {
  return new Map(Object.entries(await runClientProcess<Record<string, number[]>>(CLIENT, job)));
}

/** Runs bursts of concurrent requests (hot-paths-client.ts) in a client process. */
export async function runConcurrentClient(job: HotPathJob): Promise<HotPathSamples> {
  return runClientProcess<HotPathSamples>(CONCURRENT_CLIENT, job);
}

/** Runs a client script in its own process: the job goes in on stdin, its JSON answer comes out on stdout. */
export async function runClientProcess<T>(script: string, job: unknown): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end(JSON.stringify(job));
  const code = await exited;
  expectBench(code === 0, `the benchmark client exited with ${code}`);
  return JSON.parse(output) as T;
}
