/**
 * The simulated identity provider: the spec's EMA step 2 over real HTTP. It signs users
 * in (`POST /_sim/login` stands in for SSO: an OpenID Connect ID token and a refresh token), and its
 * token endpoint exchanges either for an ID-JAG (RFC 8693 token exchange): the spec's ID-JAG
 * response, 300 s, signed with a key it publishes as JWKS, its scopes narrowed by the policy an
 * identity-provider admin set (`PUT /_sim/policy`). `POST /_sim/id-jag` signs any claims with the
 * same key, for tests of what a verifier must refuse.
 */
import { Hono, type Context } from 'hono';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export const ID_JAG_LIFETIME_SECONDS = 300;
const ID_TOKEN_LIFETIME_SECONDS = 3600;
export const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
export const TOKEN_TYPE_ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
export const TOKEN_TYPE_REFRESH_TOKEN = 'urn:ietf:params:oauth:token-type:refresh_token';
/** Refresh tokens remembered; the oldest is forgotten beyond this (a demo signs in a handful of users). */
export const REFRESH_TOKENS_MAX = 1000;
const ALG = 'ES256';

export type SimulatedIdpOptions = {
  /** The issuer it signs as; by default the origin it is reached at. */
  issuer?: string;
  /** Scopes its policy allows; by default any scope asked for. */
  allowedScopes?: string[];
  /** Its clock, epoch ms. */
  now?: () => number;
};

export type SimulatedIdp = {
  fetch(request: Request): Promise<Response>;
  close(): void;
  /** The policy: scopes an ID-JAG may carry (null: all asked for). */
  setAllowedScopes(scopes: string[] | null): void;
};

/**
 * How the JWKS endpoint misbehaves (`PUT /_sim/jwks-fault`), for verifiers that must not trust it:
 * `junk` (200, not JSON), `error` (500), `redirect` (302 to the real keys), `huge` (200, a valid
 * JSON object of 16 MB, served as fast as it is read), `stall` (200, headers, then nothing).
 */
export const JWKS_FAULTS = ['junk', 'error', 'redirect', 'huge', 'stall'] as const;
export type JwksFault = (typeof JWKS_FAULTS)[number];
export const HUGE_JWKS_BYTES = 16 * 1024 * 1024;
const HUGE_CHUNK = new TextEncoder().encode('x'.repeat(64 * 1024));

type Keys = { privateKey: CryptoKey; publicJwk: JWK; kid: string };

const oauthError = (c: Context, status: 400 | 401, error: string, description: string) =>
  c.json({ error, error_description: description }, status, { 'cache-control': 'no-store' });

export function createSimulatedIdp(options: SimulatedIdpOptions = {}): SimulatedIdp {
  const now = options.now ?? (() => Date.now());
  let allowed: string[] | null = options.allowedScopes ?? null;
  // Generated on first use: a key made at module scope would be shared by every instance.
  let keys: Promise<Keys> | null = null;
  const signingKeys = () => {
    keys ??= (async () => {
      const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
      const kid = crypto.randomUUID();
      return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' }, kid };
    })();
    return keys;
  };
  const refreshTokens = new Map<string, string>();
  const issuerOf = (c: Context) => options.issuer ?? new URL(c.req.url).origin;
  const seconds = () => Math.floor(now() / 1000);

  const sign = async (payload: JWTPayload, typ: string, lifetimeSeconds: number, issuer: string) => {
    const { privateKey, kid } = await signingKeys();
    const iat = seconds();
    return new SignJWT(payload)
      .setProtectedHeader({ alg: ALG, kid, typ })
      .setIssuer(issuer)
      .setIssuedAt(iat)
      .setExpirationTime(iat + lifetimeSeconds)
      .setJti(crypto.randomUUID())
      .sign(privateKey);
  };

  /** The subject of a token this provider issued, or null. */
  const subjectOf = async (c: Context, token: string, type: string): Promise<string | null> => {
    if (type === TOKEN_TYPE_REFRESH_TOKEN) return refreshTokens.get(token) ?? null;
    if (type !== TOKEN_TYPE_ID_TOKEN) return null;
    try {
      const { publicJwk } = await signingKeys();
      const { payload } = await jwtVerify(token, publicJwk, { issuer: issuerOf(c), currentDate: new Date(now()) });
      return payload.sub ?? null;
    } catch {
      return null;
    }
  };

  const app = new Hono();
  let jwksFault: JwksFault | null = null;
  /** Bytes of key-set bodies handed to readers since the fault was set: what a capped reader took. */
  let jwksBytesServed = 0;
  /** Streams left open by `stall`, ended when the simulator closes. */
  const stalled = new Set<ReadableStreamDefaultController<Uint8Array>>();

  app.get('/.well-known/jwks.json', async (c) => {
    if (jwksFault === 'junk') return c.text('<html>Service Unavailable</html>', 200);
    if (jwksFault === 'error') return c.json({ error: 'internal' }, 500);
    if (jwksFault === 'redirect') return c.redirect('/.well-known/jwks.json?moved=1', 302);
    if (jwksFault === 'huge')
      return c.body(
        hugeKeySet((bytes) => (jwksBytesServed += bytes)),
        200,
        { 'content-type': 'application/json' },
      );
    if (jwksFault === 'stall') {
      let held: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          held = controller;
          stalled.add(controller);
        },
        // The reader gave up: nothing is left to end.
        cancel() {
          if (held) stalled.delete(held);
        },
      });
      return c.body(body, 200, { 'content-type': 'application/json' });
    }
    return c.json({ keys: [(await signingKeys()).publicJwk] });
  });

  app.get('/.well-known/openid-configuration', (c) => {
    const issuer = issuerOf(c);
    const origin = new URL(c.req.url).origin;
    return c.json({
      issuer,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      token_endpoint: `${origin}/oauth2/token`,
      grant_types_supported: [GRANT_TOKEN_EXCHANGE],
    });
  });

  app.post('/oauth2/token', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    if (field('grant_type') !== GRANT_TOKEN_EXCHANGE) return oauthError(c, 400, 'unsupported_grant_type', `grant_type must be ${GRANT_TOKEN_EXCHANGE}`);
    if (field('requested_token_type') !== TOKEN_TYPE_ID_JAG) return oauthError(c, 400, 'invalid_request', `requested_token_type must be ${TOKEN_TYPE_ID_JAG}`);
    if (!field('audience')) return oauthError(c, 400, 'invalid_request', 'audience is required: the MCP server the ID-JAG is for');
    if (!field('client_id')) return oauthError(c, 400, 'invalid_request', 'client_id is required: the client the ID-JAG is for');
    const sub = await subjectOf(c, field('subject_token'), field('subject_token_type'));
    if (!sub) return oauthError(c, 400, 'invalid_grant', 'subject_token is not a live ID token or refresh token of this provider');
    const asked = field('scope').split(' ').filter(Boolean);
    // The policy narrows: what the admin allows of what was asked (possibly fewer, said in the answer).
    const scopes = allowed === null ? asked : asked.filter((s) => allowed!.includes(s));
    if (asked.length > 0 && scopes.length === 0) return oauthError(c, 400, 'invalid_scope', 'the policy allows none of the scopes asked for');
    const claims: JWTPayload = { sub, aud: field('audience'), client_id: field('client_id'), scope: scopes.join(' ') };
    if (field('resource')) claims.resource = field('resource');
    const idJag = await sign(claims, 'oauth-id-jag+jwt', ID_JAG_LIFETIME_SECONDS, issuerOf(c));
    return c.json(
      { issued_token_type: TOKEN_TYPE_ID_JAG, access_token: idJag, token_type: 'N_A', scope: scopes.join(' '), expires_in: ID_JAG_LIFETIME_SECONDS },
      200,
      { 'cache-control': 'no-store' },
    );
  });

  // Control routes, as the other simulators have them under /_sim.
  app.post('/_sim/login', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { sub?: unknown } | null;
    const sub = typeof body?.sub === 'string' && body.sub.length > 0 && body.sub.length <= 255 ? body.sub : null;
    if (!sub) return c.json({ ok: false, error: 'sub: expected a user id of 1 to 255 characters' }, 400);
    const idToken = await sign({ sub, aud: 'statuswatch-sim-sso' }, 'JWT', ID_TOKEN_LIFETIME_SECONDS, issuerOf(c));
    const refreshToken = `rt_${crypto.randomUUID()}`;
    refreshTokens.set(refreshToken, sub);
    if (refreshTokens.size > REFRESH_TOKENS_MAX) refreshTokens.delete(refreshTokens.keys().next().value!);
    return c.json({ ok: true, id_token: idToken, refresh_token: refreshToken });
  });

  app.put('/_sim/policy', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { allowed_scopes?: unknown } | null;
    const scopes = body?.allowed_scopes;
    if (scopes !== null && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))) {
      return c.json({ ok: false, error: 'allowed_scopes: expected an array of scopes, or null for any' }, 400);
    }
    allowed = scopes;
    return c.json({ ok: true, allowed_scopes: allowed });
  });

  /** Signs the claims given (null leaves one out) with typ as given: iss, iat, exp (300 s) and jti unless overridden. */
  app.post('/_sim/id-jag', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { claims?: JWTPayload; typ?: string } | null;
    const { privateKey, kid } = await signingKeys();
    const claims: JWTPayload = { iss: issuerOf(c), iat: seconds(), exp: seconds() + ID_JAG_LIFETIME_SECONDS, jti: crypto.randomUUID(), ...body?.claims };
    // A claim given as null is left out: how a test asks for an ID-JAG without a jti.
    for (const [name, value] of Object.entries(claims)) if (value === null) delete claims[name];
    const jwt = await new SignJWT(claims).setProtectedHeader({ alg: ALG, kid, typ: body?.typ ?? 'oauth-id-jag+jwt' }).sign(privateKey);
    return c.json({ ok: true, id_jag: jwt });
  });

  app.put('/_sim/jwks-fault', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { fault?: unknown } | null;
    const fault = body?.fault;
    if (fault !== null && !JWKS_FAULTS.includes(fault as JwksFault)) {
      return c.json({ ok: false, error: `fault: expected one of ${JWKS_FAULTS.join(', ')}, or null for none` }, 400);
    }
    jwksFault = fault as JwksFault | null;
    jwksBytesServed = 0;
    return c.json({ ok: true, fault: jwksFault });
  });

  app.get('/_sim/state', (c) =>
    c.json({
      ok: true,
      issuer: issuerOf(c),
      allowed_scopes: allowed,
      refresh_tokens: refreshTokens.size,
      jwks_fault: jwksFault,
      jwks_bytes_served: jwksBytesServed,
    }),
  );

  return {
    fetch: async (request) => app.fetch(request),
    close: () => {
      refreshTokens.clear();
      for (const controller of stalled) {
        try {
          controller.close();
        } catch {
          // Already errored by its connection's end.
        }
      }
      stalled.clear();
    },
    setAllowedScopes: (scopes) => {
      allowed = scopes;
    },
  };
}

/** `{"keys":[],"padding":"xxx...` to HUGE_JWKS_BYTES: valid JSON, made as it is read, each chunk counted. */
function hugeKeySet(served: (bytes: number) => void): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode('{"keys":[],"padding":"');
  const tail = new TextEncoder().encode('"}');
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = sent === 0 ? head : sent + HUGE_CHUNK.byteLength + tail.byteLength >= HUGE_JWKS_BYTES ? tail : HUGE_CHUNK;
      controller.enqueue(chunk);
      sent += chunk.byteLength;
      served(chunk.byteLength);
      if (chunk === tail) controller.close();
    },
  });
}
