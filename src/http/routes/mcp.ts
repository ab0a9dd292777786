/**
 * `/mcp`: statuswatch's MCP server over Streamable HTTP, stateless. Each POST is checked
 * for its Host and Origin, authenticated by MCP_AUTH (wrong tokens under a per-address guess
 * throttle), counted against its client's rate limit, then answered by a fresh
 * server (mcp/mcp-server.ts). There is no server-to-client stream, so GET and DELETE are 405.
 */
import { Hono } from 'hono';
import type { LimitRule } from '../../core/rate-limit.ts';
import type { AppDeps } from '../deps.ts';
import type { ArchiveReads, RateLimitStore, SourceStore } from '../../core/ports.ts';
import { serviceNamesOfSource } from '../../app/known-services.ts';
import { baseUrlOf, createMcpAuthenticator, type McpAuthDeps } from '../mcp/mcp-auth.ts';
import { serveMcpRequest } from '../mcp/mcp-server.ts';
import { createRefusalLog } from '../refusal-log.ts';
import { siteOrigin } from '../site-origin.ts';
import { reliabilityFigures } from '../../app/reliability-figures.ts';

const DEFAULT_RATE_PER_MINUTE = 60;

/** A JSON-RPC error with no request id: what an MCP client shows when the HTTP layer refuses. */
const rpcError = (message: string) => ({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

export type McpRouteDeps = McpAuthDeps &
  Pick<AppDeps, 'cursors' | 'logger' | 'publicUrl'> & {
    store: ArchiveReads & Pick<RateLimitStore, 'hitRateLimit'> & Pick<SourceStore, 'getSource' | 'componentStates' | 'blindSpells'>;
  };

export function mcpRoutes(deps: McpRouteDeps) {
  const { store, clock, cursors } = deps;
  const app = new Hono();
  const authenticate = createMcpAuthenticator(deps);
  const site = siteOrigin(deps.publicUrl);
  // Anyone can send wrong tokens, as often as they like: the first of a minute is a line, the rest a count.
  const refusals = createRefusalLog(deps, 'mcp request refused');
  const known = serviceNamesOfSource(store, clock);
  const reliability = reliabilityFigures(store, clock);
  const mode = deps.mcp?.settings.auth ?? 'none';
  const rule: LimitRule = { limit: deps.mcp?.settings.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE, windowMs: 60_000 };

  app.on(['GET', 'DELETE'], '/mcp', (c) => c.json(rpcError('this server is stateless: send JSON-RPC requests with POST'), 405, { allow: 'POST' }));

  app.post('/mcp', async (c) => {
    // The MCP transport spec: a server must check Origin (and a local one Host), so a web page in
    // a browser cannot drive an assistant's tools, not even under a name of its own that it
    // re-points at this machine (DNS rebinding). Clients that are not browsers send no Origin.
    // These refusals are not logged: they cost nothing, and anyone can send them.
    if (!site.isServedHost(c)) return c.json(rpcError('this server does not answer to that Host: use PUBLIC_URL or a loopback name'), 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && !site.isOwnOrigin(origin, c)) return c.json(rpcError('requests from another origin are refused'), 403);
    const baseUrl = baseUrlOf(c, deps.publicUrl);
    const auth = await authenticate(c, baseUrl);
    if (!auth.ok) {
      refusals.refused(auth.error, deps.clientAddress(c), { mode });
      if (auth.error === 'throttled') {
        const seconds = String(auth.retryAfterSeconds);
        return c.json(rpcError(`too many wrong tokens from this address; try again in ${seconds} s`), 429, { 'retry-after': seconds });
      }
      // RFC 9728 section 5.1: under EMA the challenge says where the resource metadata is.
      const challenge =
        mode === 'ema'
          ? `Bearer error="${auth.error}", resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/mcp"`
          : `Bearer realm="statuswatch mcp", error="${auth.error}"`;
      return c.json({ error: auth.error, error_description: auth.description }, 401, { 'www-authenticate': challenge });
    }
    const decision = await store.hitRateLimit(`mcp:${auth.client.key}`, rule, clock.now());
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      return c.json(rpcError(`rate limited: at most ${rule.limit} requests a minute; try again in ${seconds} s`), 429, { 'retry-after': String(seconds) });
    }
    return serveMcpRequest(c.req.raw, { store, clock, cursors, known, reliability, baseUrl }, auth.client.scopes);
  });

  return app;
}
