/**
 * The token side of enterprise-managed authorization (MCP_AUTH=ema): where /mcp's
 * protected-resource metadata says to go (RFC 9728), and the token endpoint that takes an ID-JAG
 * as a JWT bearer assertion (RFC 7523) with the client's credentials, as the spec's
 * oauth.v2.user.access does, and answers with the spec's EMA access token response. Refusals have
 * the OAuth error body, and are logged with their reason, never with the assertion.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ACCESS_TOKEN_LIFETIME_SECONDS, AssertionRefused } from '../../adapters/jose-ema-tokens.ts';
import { sha256Hex } from '../../core/content-hash.ts';
import { grantedScopes, MCP_SCOPES } from '../../core/mcp-scopes.ts';
import { PER_ADDRESS_GUESSES } from '../../core/guess-throttle.ts';
import { type LimitRule, limitKeyForAddress } from '../../core/rate-limit.ts';
import type { AppDeps } from '../deps.ts';
import type { AdminAccessStore, McpAccessStore, RateLimitStore } from '../../core/ports.ts';
import { baseUrlOf } from '../mcp/mcp-auth.ts';
import { createRefusalLog } from '../refusal-log.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_ENDPOINT_PATH = '/api/oauth.v2.user.access';
/**
 * ID-JAGs remembered as spent at once. Each is remembered at most 660 s (the lifetime cap plus
 * twice the skew), and the client may ask for 300 grants a minute, so at most 3,300 are: the bound
 * holds the table whatever a client sends, and past it grants are refused (503, retry later).
 */
export const SPENT_ASSERTIONS_MAX = 10_000;
/**
 * Grants the authenticated client (the agent platform) may ask for in a minute, from whichever
 * addresses: each one verifies an assertion and writes to the archive, and each refusal among them
 * is one log line. Only the client spends it: requests that fail client authentication are answered
 * before it, so nobody else can use it up.
 */
export const TOKEN_REQUESTS_PER_CLIENT: LimitRule = { limit: 300, windowMs: 60_000 };

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** A grant is an assertion of a few KB and two credentials; more is not a grant. */
const TOKEN_REQUEST_MAX_BYTES = 32 * 1024;

type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'temporarily_unavailable'
  | 'slow_down';

export type McpOAuthRouteDeps = Pick<AppDeps, 'clock' | 'logger' | 'mcp' | 'publicUrl' | 'clientAddress'> & {
  store: Pick<AdminAccessStore, 'throttleGuess'> & Pick<RateLimitStore, 'hitRateLimit'> & Pick<McpAccessStore, 'spendAssertion'>;
};

export function mcpOAuthRoutes(deps: McpOAuthRouteDeps) {
  const { store, clock, logger } = deps;
  const app = new Hono();
  const ema = deps.mcp?.settings.ema;
  const verify = deps.mcp?.verifyIdJag;
  const tokens = deps.mcp?.tokens;
  if (deps.mcp?.settings.auth !== 'ema' || !ema || !verify || !tokens) return app;

  const metadata = (c: Context) => {
    const base = baseUrlOf(c, deps.publicUrl);
    return c.json({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: [...MCP_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'statuswatch',
    });
  };
  app.get('/.well-known/oauth-protected-resource/mcp', metadata);
  app.get('/.well-known/oauth-protected-resource', metadata);

  // RFC 8414, so a client that found us in the resource metadata finds the token endpoint.
  app.get('/.well-known/oauth-authorization-server', (c) => {
    const base = baseUrlOf(c, deps.publicUrl);
    return c.json({
      issuer: base,
      token_endpoint: `${base}${TOKEN_ENDPOINT_PATH}`,
      grant_types_supported: [JWT_BEARER_GRANT],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      scopes_supported: [...MCP_SCOPES],
    });
  });

  const anonymousRefusals = createRefusalLog(deps, 'ema client refused');

  const limit = bodyLimit({
    maxSize: TOKEN_REQUEST_MAX_BYTES,
    onError: (c) => c.json({ error: 'invalid_request', error_description: `the request is larger than ${TOKEN_REQUEST_MAX_BYTES} bytes` }, 413, NO_STORE),
  });

  app.post(TOKEN_ENDPOINT_PATH, limit, async (c) => {
    const address = deps.clientAddress(c);
    const answer = (status: 400 | 401 | 429 | 503, error: OAuthErrorCode, description: string, headers: Record<string, string> = {}) =>
      c.json({ error, error_description: description }, status, { ...NO_STORE, ...headers });
    const slowDown = (retryAfterMs: number) => {
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      return answer(429, 'slow_down', `too many token requests; try again in ${seconds} s`, { 'retry-after': String(seconds) });
    };
    const refuse = (
      status: 400 | 503,
      error: OAuthErrorCode,
      description: string,
      fields: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => {
      // The reason and who asked; never the assertion nor the secret. Only the authenticated
      // client gets here, within its limit, so each refusal is worth a line of its own.
      logger.warn('ema grant refused', { error, reason: description, address, ...fields });
      return answer(status, error, description, headers);
    };

    // The client first: until it is authenticated, nothing shared is spent and nothing is logged
    // line by line, so a flood from anywhere cannot hold back the agent platform.
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    const client = clientCredentials(c, field);
    const unauthenticated = () =>
      answer(401, 'invalid_client', 'client authentication failed: send client_id and client_secret', { 'www-authenticate': 'Basic realm="statuswatch"' });
    // No credentials at all guess nothing: refused at once, and nothing is written for it.
    if (!client) {
      anonymousRefusals.refused('no_credentials', address);
      return unauthenticated();
    }
    const right = (await sameSecret(client.id, ema.clientId)) && (await sameSecret(client.secret, ema.clientSecret));
    // Wrong secrets wait, per address only: a wait anywhere else would let a guesser lock the client out.
    const throttle = await store.throttleGuess([{ key: `ema-client-guess:${limitKeyForAddress(address)}`, rule: PER_ADDRESS_GUESSES }], !right, clock.now());
    if (!throttle.allowed) {
      anonymousRefusals.refused('throttled', address);
      return slowDown(throttle.retryAfterMs);
    }
    if (!right) {
      anonymousRefusals.refused('wrong_credentials', address);
      return unauthenticated();
    }
    const limited = await store.hitRateLimit('ema-token:client', TOKEN_REQUESTS_PER_CLIENT, clock.now());
    // Past its limit the client is answered, never logged: the log stays bounded too.
    if (!limited.allowed) return slowDown(limited.retryAfterMs);
    if (field('grant_type') !== JWT_BEARER_GRANT) return refuse(400, 'unsupported_grant_type', `grant_type must be ${JWT_BEARER_GRANT}`);
    const assertion = field('assertion');
    if (!assertion) return refuse(400, 'invalid_request', 'assertion is required: the ID-JAG from the identity provider');
    if (assertion.length > 16_384) return refuse(400, 'invalid_request', 'assertion is longer than any ID-JAG');

    const base = baseUrlOf(c, deps.publicUrl);
    const now = clock.now();
    let claims: Awaited<ReturnType<typeof verify>>;
    try {
      claims = await verify(assertion, { audience: `${base}/mcp`, clientId: ema.clientId, nowMs: now });
    } catch (error) {
      if (!(error instanceof AssertionRefused)) throw error;
      if (error.reason === 'keys_unavailable')
        return refuse(503, 'temporarily_unavailable', error.message, { reason_code: error.reason }, { 'retry-after': '30' });
      return refuse(400, 'invalid_grant', error.message, { reason_code: error.reason });
    }
    // Remembered for as long as the assertion verifies, skew included: a replay is refused until then.
    const spent = await store.spendAssertion(`${claims.iss}|${claims.jti}`, claims.verifiableUntilMs, now, SPENT_ASSERTIONS_MAX);
    if (spent === 'replayed')
      return refuse(400, 'invalid_grant', 'the assertion was already used: get a new ID-JAG', { reason_code: 'replayed', jti: claims.jti });
    if (spent === 'full')
      return refuse(503, 'temporarily_unavailable', 'too many grants just now; try again shortly', { reason_code: 'full' }, { 'retry-after': '30' });

    const scopes = grantedScopes(claims.scope, field('scope') || undefined);
    if (scopes.length === 0)
      return refuse(400, 'invalid_scope', `the assertion grants none of this server's scopes (${MCP_SCOPES.join(', ')})`, { reason_code: 'no_scope' });
    const accessToken = await tokens.issue({ sub: claims.sub, scopes, clientId: claims.clientId }, { issuer: base, audience: `${base}/mcp`, nowMs: now });
    logger.info('ema grant issued', { sub_hash: (await sha256Hex(claims.sub)).slice(0, 16), scope: scopes.join(' '), jti: claims.jti });
    // The spec's EMA access token response: the scopes issued, which may be fewer than asked.
    return c.json({ token_type: 'Bearer', access_token: accessToken, expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope: scopes.join(' ') }, 200, NO_STORE);
  });

  return app;
}

/** client_id and client_secret from the form (client_secret_post) or HTTP Basic (client_secret_basic). */
function clientCredentials(c: Context, field: (name: string) => string): { id: string; secret: string } | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(c.req.header('authorization') ?? '');
  if (basic) {
    try {
      const decoded = atob(basic[1]!);
      const colon = decoded.indexOf(':');
      if (colon > 0) return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
    } catch {
      return null;
    }
    return null;
  }
  return field('client_id') && field('client_secret') ? { id: field('client_id'), secret: field('client_secret') } : null;
}

/** Compares digests, so the time taken says nothing about how much of a secret was right. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
