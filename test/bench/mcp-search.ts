/**
 * Benchmark: the MCP tool search_incidents against the same query over /api/incidents,
 * interleaved in one run over loopback, reported as ratios. The MCP call pays for what the API
 * does not: a JSON-RPC envelope, a fresh stateless server per request, the client's rate-limit
 * write, and a text rendering beside the structured content. Neither is a cache hit: the API's
 * requests each name a distinct Host (its response cache keys on the origin), and /mcp has no
 * response cache.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { request } from 'undici';
import { createApp } from '../../src/http/app.ts';
import { buildAppDeps } from '../helpers/app-deps.ts';
import { nodeAppPorts } from '../helpers/node-app-ports.ts';
import { expectBench, type SectionReport, silentLogger } from './harness.ts';
import { setUpQueryWorld } from './query-setup.ts';
import { interleave, summarize } from './stats.ts';
import { COMMON_WORD, RARE_WORD } from './synthetic.ts';
import { heading, ms, ratio, table } from './table.ts';

export type McpSearchOptions = { archiveIncidents: number; rounds: number; warmUpRounds: number };

type Query = { label: string; api: string; args: Record<string, unknown> };

const QUERIES: Query[] = [
  { label: `q=${RARE_WORD}`, api: `q=${RARE_WORD}`, args: { q: RARE_WORD } },
  { label: `q=${COMMON_WORD}, limit 20`, api: `q=${COMMON_WORD}&limit=20`, args: { q: COMMON_WORD, limit: 20 } },
  { label: 'service=Files, a year, limit 50', api: 'service=Files&since=__SINCE__&limit=50', args: { service: 'Files', since: '__SINCE__', limit: 50 } },
];

export async function benchMcpSearch(options: McpSearchOptions): Promise<SectionReport> {
  const world = await setUpQueryWorld(options.archiveIncidents);
  // The app with the MCP server at its default rate limit, behind a proxy (TRUST_PROXY): each
  // request names one of many client addresses, so none is refused and each client's log of hits
  // stays as small as a real client's. The limiter's write is part of what is measured.
  // The API's budget of builds at its most: this one client builds every answer it asks for.
  const deps = await buildAppDeps(
    { ...(await nodeAppPorts(world.archive.connection, silentLogger)) },
    { startedAt: world.nowMs, env: { TRUST_PROXY: 'true', READ_BUDGET_MS_PER_SECOND: '1000' } },
  );
  const app = createApp({ ...deps, mcp: { settings: { auth: 'none', ratePerMinute: 60 } } });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const since = new Date(world.nowMs - 365 * 86_400_000).toISOString().slice(0, 10);
    const queries = QUERIES.map((q) => ({
      ...q,
      api: q.api.replace('__SINCE__', since),
      args: JSON.parse(JSON.stringify(q.args).replace('__SINCE__', since)),
    }));
    let n = 0;
    const api = async (query: string) => {
      // A Host of its own, which the response cache keys on (answers' links are built from it): every request is built.
      const res = await request(`${url}/api/incidents?${query}`, { headers: { host: `fresh-${n++}.localhost` } });
      const body = (await res.body.json()) as { incidents: { id: string }[] };
      return body.incidents.map((i) => i.id);
    };
    const mcp = async (args: Record<string, unknown>) => {
      const res = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'x-forwarded-for': `10.0.${n % 250}.${Math.floor(n / 250) % 250}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: n++, method: 'tools/call', params: { name: 'search_incidents', arguments: args } }),
      });
      const body = (await res.json()) as { result?: { structuredContent?: { incidents: { id: string }[] } } };
      return body.result?.structuredContent?.incidents.map((i) => i.id) ?? [];
    };
    // Both answer the same incidents, or the comparison means nothing.
    for (const query of queries) {
      const [a, m] = await Promise.all([api(query.api), mcp(query.args)]);
      expectBench(
        a.length > 0 && JSON.stringify(a) === JSON.stringify(m),
        `${query.label}: /api/incidents and search_incidents disagree (${a.length} vs ${m.length} incidents)`,
      );
    }
    const cases = queries.flatMap((query) => [
      { name: `api ${query.label}`, run: () => api(query.api) },
      { name: `mcp ${query.label}`, run: () => mcp(query.args) },
    ]);
    await interleave(cases, options.warmUpRounds);
    const samples = await interleave(cases, options.rounds);
    const rows = queries.map((query) => {
      const a = summarize(samples.get(`api ${query.label}`)!);
      const m = summarize(samples.get(`mcp ${query.label}`)!);
      return [query.label, a.n, ms(a.p50), ms(m.p50), ratio(m.p50 / a.p50), ms(a.p95), ms(m.p95), ratio(m.p95 / a.p95)] as const;
    });
    const text = [
      heading(`MCP search_incidents vs /api/incidents (${options.archiveIncidents.toLocaleString('en')} incidents, loopback, every request built)`),
      table(['query', 'runs', 'api p50 ms', 'mcp p50 ms', 'mcp/api p50', 'api p95 ms', 'mcp p95 ms', 'mcp/api p95'], rows),
      'The MCP call adds the JSON-RPC envelope, a fresh stateless server per request, its rate-limit write and a text rendering.',
    ].join('\n');
    return { text, goals: [] };
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await world.close();
  }
}
