/**
 * Who is calling /mcp, by MCP_AUTH: anyone (none), the holder of an admin-made token (token), or
 * the bearer of an access token this server issued for an ID-JAG (ema). The answer names the
 * client for its rate limit, and the scopes that decide which tools it sees.
 */
import type { Context } from 'hono';
import { sha256Hex } from '../../core/content-hash.ts';
import { MCP_SCOPES, type McpScope, knownScopes } from '../../core/mcp-scopes.ts';
import { limitKeyForAddress } from '../../core/rate-limit.ts';
import type { AppDeps } from '../deps.ts';

export type McpClient = { key: string; scopes: McpScope[] };

export type McpAuthOutcome = { ok: true; client: McpClient } | { ok: false; error: 'invalid_token'; description: string };

/** `Bearer <token>`; anything else is no token. */
export function bearerToken(c: Context): string | null {
  const match = /^Bearer\s+([\x21-\x7e]{1,4096})\s*$/i.exec(c.req.header('authorization') ?? '');
  return match?.[1] ?? null;
}

/**
 * The MCP URL and the origin links start with: PUBLIC_URL, or the origin the request reached, which
 * /mcp answers only under a loopback name (site-origin.ts), as the default PUBLIC_URL is localhost.
 */
export function baseUrlOf(c: Context, publicUrl: string | undefined): string {
  return (publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

export function createMcpAuthenticator(deps: Pick<AppDeps, 'store' | 'clock' | 'clientAddress' | 'mcp'>) {
  const mode = deps.mcp?.settings.auth ?? 'none';
  return async (c: Context, baseUrl: string): Promise<McpAuthOutcome> => {
    if (mode === 'none') return { ok: true, client: { key: `address:${limitKeyForAddress(deps.clientAddress(c))}`, scopes: [...MCP_SCOPES] } };
    const token = bearerToken(c);
    if (!token) return { ok: false, error: 'invalid_token', description: 'expected Authorization: Bearer <token>' };
    if (mode === 'token') {
      const record = await deps.store.findMcpTokenByHash(await sha256Hex(token));
      if (!record) return { ok: false, error: 'invalid_token', description: 'unknown or revoked token' };
      return { ok: true, client: { key: `token:${record.id}`, scopes: [...MCP_SCOPES] } };
    }
    const claims = await deps.mcp?.tokens?.verify(token, { issuer: baseUrl, audience: `${baseUrl}/mcp`, nowMs: deps.clock.now() });
    if (!claims) return { ok: false, error: 'invalid_token', description: 'the access token is invalid or expired; get a new one with a fresh ID-JAG' };
    // The subject comes from the identity provider: hashed, so a long one cannot bloat the limiter's keys.
    return { ok: true, client: { key: `ema:${(await sha256Hex(claims.sub)).slice(0, 32)}`, scopes: knownScopes(claims.scopes.join(' ')) } };
  };
}
