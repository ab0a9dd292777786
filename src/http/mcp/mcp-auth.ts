/**
 * Who is calling /mcp, by MCP_AUTH: anyone (none), the holder of an admin-made token (token), or
 * the bearer of an access token this server issued for an ID-JAG (ema). The answer names the
 * client for its rate limit, and the scopes that decide which tools it sees.
 */
import type { Context } from 'hono';
import { sha256Hex } from '../../core/content-hash.ts';
import { MCP_SCOPES, type McpScope, knownScopes } from '../../core/mcp-scopes.ts';
import { type GuessLimit, PER_ADDRESS_GUESSES } from '../../core/guess-throttle.ts';
import { limitKeyForAddress } from '../../core/rate-limit.ts';
import type { AppDeps } from '../deps.ts';
import type { AdminAccessStore, McpAccessStore } from '../../core/ports.ts';

export type McpClient = { key: string; scopes: McpScope[] };

export type McpAuthOutcome =
  | { ok: true; client: McpClient }
  | { ok: false; error: 'invalid_token'; description: string }
  | { ok: false; error: 'throttled'; retryAfterSeconds: number };

/** The guess throttle's key for wrong bearer tokens from one address: waits there, and nowhere else. */
const guessLimitFor = (address: string): GuessLimit[] => [{ key: `mcp-guess:${limitKeyForAddress(address)}`, rule: PER_ADDRESS_GUESSES }];

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

export type McpAuthDeps = Pick<AppDeps, 'clock' | 'clientAddress' | 'mcp'> & {
  store: Pick<McpAccessStore, 'findMcpTokenByHash'> & Pick<AdminAccessStore, 'throttleGuess'>;
};

export function createMcpAuthenticator(deps: McpAuthDeps) {
  const mode = deps.mcp?.settings.auth ?? 'none';
  return async (c: Context, baseUrl: string): Promise<McpAuthOutcome> => {
    if (mode === 'none') return { ok: true, client: { key: `address:${limitKeyForAddress(deps.clientAddress(c))}`, scopes: [...MCP_SCOPES] } };
    const token = bearerToken(c);
    // No token at all guesses nothing: refused at once, and nothing is written for it.
    if (!token) return { ok: false, error: 'invalid_token', description: 'expected Authorization: Bearer <token>' };
    const checked = await check(token, baseUrl);
    // Checked first, but a throttled answer is the same whether the token was right or not.
    const decision = await deps.store.throttleGuess(guessLimitFor(deps.clientAddress(c)), checked.guess === 'wrong', deps.clock.now());
    if (!decision.allowed) return { ok: false, error: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    return checked.outcome;
  };

  /**
   * A token's outcome, and whether it was a wrong guess. An access token of ours that merely
   * expired is no guess: an agent platform serving many users from one address presents one an
   * hour per user, and must not be made to wait for them.
   */
  async function check(token: string, baseUrl: string): Promise<{ outcome: McpAuthOutcome; guess: 'right' | 'wrong' | 'stale' }> {
    if (mode === 'token') {
      const record = await deps.store.findMcpTokenByHash(await sha256Hex(token));
      if (!record) return { outcome: { ok: false, error: 'invalid_token', description: 'unknown or revoked token' }, guess: 'wrong' };
      return { outcome: { ok: true, client: { key: `token:${record.id}`, scopes: [...MCP_SCOPES] } }, guess: 'right' };
    }
    const verified = await deps.mcp?.tokens?.verify(token, { issuer: baseUrl, audience: `${baseUrl}/mcp`, nowMs: deps.clock.now() });
    if (!verified || verified === 'expired') {
      return {
        outcome: { ok: false, error: 'invalid_token', description: 'the access token is invalid or expired; get a new one with a fresh ID-JAG' },
        guess: verified === 'expired' ? 'stale' : 'wrong',
      };
    }
    // The subject comes from the identity provider: hashed, so a long one cannot bloat the limiter's keys.
    const client = { key: `ema:${(await sha256Hex(verified.sub)).slice(0, 32)}`, scopes: knownScopes(verified.scopes.join(' ')) };
    return { outcome: { ok: true, client }, guess: 'right' };
  }
}
