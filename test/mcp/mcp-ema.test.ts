/**
 * MCP_AUTH=ema end to end: the simulated identity provider signs a user in and
 * exchanges the ID token for an ID-JAG; statuswatch's token endpoint (oauth.v2.user.access)
 * verifies it against the provider's JWKS and issues an access token; the SDK's client uses it
 * over Streamable HTTP. Then each assertion the endpoint must refuse, with the OAuth error body and
 * a log line that never holds the assertion.
 */
import { request } from 'node:http';
import Database from 'better-sqlite3';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUGE_JWKS_BYTES, startSimulatedIdp, type RunningSimulatedIdp } from '../../src/sim/idp/index.ts';
import { TOKEN_REQUESTS_PER_CLIENT } from '../../src/http/routes/mcp-oauth.ts';
import { startTestService, startTestVendor, type TestService, type TestVendor } from '../helpers/service.ts';
import { connectMcp, mcpArchive, rawMcpCall } from './mcp-helpers.ts';

/** Where the assistant reaches statuswatch: the ID-JAG's audience is ${PUBLIC_URL}/mcp, whatever Host a request names. */
const PUBLIC_URL = 'https://status.example.test';
const CLIENT_ID = 'agent-platform';
const CLIENT_SECRET = 'agent-platform-secret-0123456789';
const ALL_TOOLS = ['current_status', 'get_incident', 'recent_changes', 'reliability', 'search_incidents'];

describe('MCP_AUTH=ema', () => {
  let idp: RunningSimulatedIdp;
  let vendor: TestVendor;
  let service: TestService;
  let offsetMs = 0;

  /** SSO, then the token exchange at the identity provider: the spec's ID-JAG response. */
  const idJagFor = async (sub: string, audience: string, scope = 'status:read incidents:read') => {
    const login = await (await fetch(`${idp.url}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub }) })).json();
    const res = await fetch(`${idp.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: login.id_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience,
        client_id: CLIENT_ID,
        scope,
      }),
    });
    expect(res.status).toBe(200);
    return res.json() as Promise<{ issued_token_type: string; access_token: string; token_type: string; scope: string; expires_in: number }>;
  };
  /** statuswatch's oauth.v2.user.access. */
  const grant = async (assertion: string, extra: Record<string, string> = {}) => {
    const res = await fetch(`${service.url}/api/oauth.v2.user.access`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        ...extra,
      }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const mint = async (claims: Record<string, unknown>, typ?: string) =>
    (await (await fetch(`${idp.url}/_sim/id-jag`, { method: 'POST', body: JSON.stringify({ claims, typ }) })).json()).id_jag as string;
  const mcpUrl = () => `${PUBLIC_URL}/mcp`;

  beforeAll(async () => {
    idp = await startSimulatedIdp();
    vendor = await startTestVendor({ historyWindowDays: 100_000 });
    await vendor.setIncidents(mcpArchive());
    service = await startTestService(vendor.url, {
      // TRUST_PROXY: a test can speak from more addresses than loopback, as an attacker with many would.
      env: {
        PUBLIC_URL,
        MCP_AUTH: 'ema',
        EMA_ISSUER: idp.url,
        EMA_JWKS_URL: idp.jwksUrl,
        EMA_CLIENT_ID: CLIENT_ID,
        EMA_CLIENT_SECRET: CLIENT_SECRET,
        TRUST_PROXY: 'true',
      },
      clock: { now: () => Date.now() + offsetMs },
    });
    await service.poll();
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
    await idp?.close();
  });

  it('publishes the protected-resource metadata, and the 401 says where it is', async () => {
    const metadata = await service.get('/.well-known/oauth-protected-resource/mcp');
    expect(metadata.body).toEqual({
      resource: mcpUrl(),
      authorization_servers: [PUBLIC_URL],
      scopes_supported: ['status:read', 'incidents:read'],
      bearer_methods_supported: ['header'],
      resource_name: 'statuswatch',
    });
    expect((await service.get('/.well-known/oauth-authorization-server')).body).toMatchObject({
      token_endpoint: `${PUBLIC_URL}/api/oauth.v2.user.access`,
      grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
    });
    const refused = await rawMcpCall(service.url, 'tools/list');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('runs the whole flow: ID token, ID-JAG (300 s), access token (3,600 s) bound to the subject and scopes, tools', async () => {
    const idJag = await idJagFor('U0ALICE', mcpUrl());
    expect(idJag).toMatchObject({
      issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      token_type: 'N_A',
      expires_in: 300,
      scope: 'status:read incidents:read',
    });
    const granted = await grant(idJag.access_token);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('cache-control')).toBe('no-store');
    expect(granted.body).toEqual({ token_type: 'Bearer', access_token: expect.any(String), expires_in: 3600, scope: 'status:read incidents:read' });

    const mcp = await connectMcp(service.url, granted.body.access_token);
    expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    expect((await mcp.call('search_incidents', { service: 'Files' })).structuredContent.incidents.map((i: any) => i.id)).toEqual(['2001']);
    await mcp.close();

    // An hour later the access token is over: a new ID-JAG is needed.
    offsetMs = 3600_000;
    try {
      // An expired token of ours is no guess: however many come from one address, none waits.
      for (let i = 0; i < 8; i++) {
        expect((await rawMcpCall(service.url, 'tools/list', { authorization: `Bearer ${granted.body.access_token}` })).status).toBe(401);
      }
    } finally {
      offsetMs = 0;
    }
  });

  it('keeps its signing key sealed: nothing in a copy of the database signs an access token it accepts', async () => {
    const granted = await grant((await idJagFor('U0CAROL', mcpUrl())).access_token);
    expect(granted.status).toBe(200);
    const header = decodeProtectedHeader(granted.body.access_token);
    const claims = decodeJwt(granted.body.access_token);
    // What an attacker holding a backup tries: every value the archive keeps as a key, same claims.
    const db = new Database(service.config.DATABASE_PATH, { readonly: true });
    const values = (db.prepare('SELECT value FROM meta').all() as { value: string }[]).map((row) => row.value);
    db.close();
    expect(values.length).toBeGreaterThan(0);
    // Each forgery from an address of its own, paced under the all-addresses limit, so the guess
    // throttle never answers in the verifier's place: every one is checked, and refused as a token.
    for (const [index, value] of values.entries()) {
      const forged = await new SignJWT(claims).setProtectedHeader({ ...header, alg: 'HS256' }).sign(new TextEncoder().encode(value));
      const from = { authorization: `Bearer ${forged}`, 'x-forwarded-for': `198.51.100.${index + 1}` };
      expect((await rawMcpCall(service.url, 'tools/list', from)).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect((await rawMcpCall(service.url, 'tools/list', { authorization: `Bearer ${granted.body.access_token}` })).status).toBe(200);
  });

  it('issues only the scopes the ID-JAG grants: the policy narrowed them, the answer says which, and fewer tools are open', async () => {
    idp.idp.setAllowedScopes(['status:read']);
    try {
      const idJag = await idJagFor('U0BOB', mcpUrl());
      expect(idJag.scope).toBe('status:read');
      const granted = await grant(idJag.access_token, { scope: 'status:read incidents:read' });
      expect(granted.body.scope).toBe('status:read');
      const mcp = await connectMcp(service.url, granted.body.access_token);
      expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['current_status', 'recent_changes', 'reliability']);
      expect(await mcp.call('search_incidents', {})).toMatchObject({ isError: true });
      await mcp.close();
    } finally {
      idp.idp.setAllowedScopes(null);
    }
  });

  describe('refuses with the OAuth error body, and logs the reason without the assertion', () => {
    const refusedWith = async (assertion: string, reason: string) => {
      const before = service.logs.length;
      const refused = await grant(assertion);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
      const logged = service.logs.slice(before).join('\n');
      expect(logged).toContain(`"reason_code":"${reason}"`);
      expect(logged).not.toContain(assertion);
      expect(logged).not.toContain(assertion.split('.')[2]!);
      return refused.body.error_description as string;
    };

    it('an expired assertion', async () => {
      const idJag = (await idJagFor('U0ALICE', mcpUrl())).access_token;
      // Past its 300 s and the 30 s of clock skew allowed.
      offsetMs = 331_000;
      try {
        expect(await refusedWith(idJag, 'expired')).toMatch(/expired/);
      } finally {
        offsetMs = 0;
      }
    });

    it('a forged one: signed by a key the identity provider never published', async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const { kid } = (await (await fetch(idp.jwksUrl)).json()).keys[0];
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ sub: 'U0MALLORY', client_id: CLIENT_ID, scope: 'status:read incidents:read' })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'oauth-id-jag+jwt' })
        .setIssuer(idp.url)
        .setAudience(mcpUrl())
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .setJti(crypto.randomUUID())
        .sign(privateKey);
      expect(await exportJWK(publicKey)).toBeDefined();
      expect(await refusedWith(forged, 'bad_signature')).toMatch(/signature/);
    });

    it('one for another audience, though the request names that server as its Host', async () => {
      const idJag = (await idJagFor('U0ALICE', 'https://other-mcp.example.test/mcp')).access_token;
      expect(await refusedWith(idJag, 'wrong_audience')).toMatch(/not for this MCP server/);
      const viaHost = await new Promise<number>((resolve, reject) => {
        const body = new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: idJag,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        }).toString();
        const { port } = new URL(service.url);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/oauth.v2.user.access',
            headers: { host: 'other-mcp.example.test', 'content-type': 'application/x-www-form-urlencoded' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(viaHost).toBe(400);
    });

    it('one from another issuer', async () => {
      const idJag = await mint({ iss: 'https://idp.evil.test', sub: 'U0ALICE', aud: mcpUrl(), client_id: CLIENT_ID, scope: 'status:read' });
      expect(await refusedWith(idJag, 'wrong_issuer')).toMatch(/identity provider/);
    });

    it('a replayed one: its jti was spent', async () => {
      const idJag = (await idJagFor('U0ALICE', mcpUrl())).access_token;
      expect((await grant(idJag)).status).toBe(200);
      expect(await refusedWith(idJag, 'replayed')).toMatch(/already used/);
    });

    it('a replayed one in the clock skew after its exp, when it still verifies', async () => {
      const idJag = (await idJagFor('U0ALICE', mcpUrl())).access_token;
      expect((await grant(idJag)).status).toBe(200);
      // exp is 300 s after issue (whole seconds, so up to 1 s earlier); 30 s of skew are allowed past it.
      for (const pastExpSeconds of [2, 14, 25]) {
        offsetMs = (300 + pastExpSeconds) * 1000;
        try {
          expect(await refusedWith(idJag, 'replayed')).toMatch(/already used/);
        } finally {
          offsetMs = 0;
        }
      }
    });

    it('one issued in the future beyond the skew, one without iat, and one that would live past the lifetime cap', async () => {
      const base = { sub: 'U0ALICE', aud: mcpUrl(), client_id: CLIENT_ID, scope: 'status:read' };
      const now = Math.floor(Date.now() / 1000);
      expect(await refusedWith(await mint({ ...base, iat: now + 120, exp: now + 300 }), 'not_yet_valid')).toMatch(/not valid yet/);
      await refusedWith(await mint({ ...base, iat: null }), 'missing_claim');
      // An exp in 2100 would pin its spent row for 75 years.
      expect(await refusedWith(await mint({ ...base, iat: now, exp: Date.UTC(2100, 0, 1) / 1000 }), 'too_long_lived')).toMatch(/600 s/);
      await refusedWith(await mint({ ...base, iat: now, exp: now + 601 }), 'too_long_lived');
      // Within the skew, a provider's clock a little ahead of ours is fine.
      expect((await grant(await mint({ ...base, iat: now + 20, exp: now + 320 }))).status).toBe(200);
    });

    it('one not valid yet, one that is not an ID-JAG, one without a jti, and one for another client', async () => {
      const base = { sub: 'U0ALICE', aud: mcpUrl(), client_id: CLIENT_ID, scope: 'status:read' };
      await refusedWith(await mint({ ...base, nbf: Math.floor(Date.now() / 1000) + 600 }), 'not_yet_valid');
      await refusedWith(await mint(base, 'JWT'), 'wrong_type');
      await refusedWith(await mint({ ...base, jti: null }), 'missing_claim');
      await refusedWith(await mint({ ...base, client_id: 'someone-else' }), 'wrong_client');
      await refusedWith('not.a.jwt', 'malformed');
    });

    it('one whose sub or jti holds half a surrogate pair: a key repaired could name another client, or spend another jti', async () => {
      const base = { sub: 'U0ALICE', aud: mcpUrl(), client_id: CLIENT_ID, scope: 'status:read' };
      expect(await refusedWith(await mint({ ...base, jti: 'jti-\ud800' }), 'malformed')).toMatch(/jti is not well-formed text/);
      expect(await refusedWith(await mint({ ...base, sub: 'U0\udc00' }), 'malformed')).toMatch(/sub is not well-formed text/);
      // Its well-formed twin is still granted: nothing was spent by the refusals.
      expect((await grant(await mint({ ...base, jti: 'jti-\ufffd' }))).status).toBe(200);
    });
  });

  it('refuses a client without its credentials, and a grant type it does not speak', async () => {
    const idJag = (await idJagFor('U0ALICE', mcpUrl())).access_token;
    const wrongSecret = await grant(idJag, { client_secret: 'not-the-secret-at-all' });
    expect(wrongSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const wrongGrant = await grant(idJag, { grant_type: 'client_credentials' });
    expect(wrongGrant).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(await grant('')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const huge = await grant(`${idJag}.${'x'.repeat(40_000)}`);
    expect(huge).toMatchObject({ status: 413, body: { error: 'invalid_request' } });
    // No refusal spent the assertion: it still works once.
    expect((await grant(idJag)).status).toBe(200);
    for (const line of service.logs) expect(line).not.toContain(CLIENT_SECRET);
  });
});

describe('the EMA token endpoint under a flood', () => {
  let idp: RunningSimulatedIdp;
  let vendor: TestVendor;
  let service: TestService;
  beforeAll(async () => {
    idp = await startSimulatedIdp();
    vendor = await startTestVendor();
    // Behind a proxy: each request names its client in X-Forwarded-For, so one test plays many addresses.
    service = await startTestService(vendor.url, {
      env: {
        PUBLIC_URL,
        TRUST_PROXY: 'true',
        MCP_AUTH: 'ema',
        EMA_ISSUER: idp.url,
        EMA_JWKS_URL: idp.jwksUrl,
        EMA_CLIENT_ID: CLIENT_ID,
        EMA_CLIENT_SECRET: CLIENT_SECRET,
      },
    });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
    await idp?.close();
  });

  const send = (address: string, fields: Record<string, string>) =>
    fetch(`${service.url}/api/oauth.v2.user.access`, {
      method: 'POST',
      headers: { 'x-forwarded-for': address },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'not.a.jwt', ...fields }),
    });
  const validIdJag = async () => {
    const login = await (await fetch(`${idp.url}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub: 'U0FLOOD' }) })).json();
    const res = await fetch(`${idp.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: login.id_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience: `${PUBLIC_URL}/mcp`,
        client_id: CLIENT_ID,
        scope: 'status:read',
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const lines = (text: string) => service.logs.filter((line) => line.includes(text));

  it('a flood without client credentials, from one address or many, never holds back the client, and is logged in a line or two', async () => {
    const logsBefore = service.logs.length;
    const anonymous = await Promise.all(
      Array.from({ length: TOKEN_REQUESTS_PER_CLIENT.limit + 20 }, (_, i) => send(`203.0.113.${i % 250}`, {}).then((res) => res.status)),
    );
    expect(new Set(anonymous)).toEqual(new Set([401]));
    // Wrong secrets from one address: a few are checked, then that address waits (a per-address throttle).
    const guesses = [];
    for (let i = 0; i < 8; i++) guesses.push((await send('198.51.100.7', { client_id: CLIENT_ID, client_secret: `guess-${i}-0123456789` })).status);
    expect(guesses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(guesses.slice(5)).toContain(429);

    // The agent platform, from its own address, is let in at once.
    const granted = await send('192.0.2.10', { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, assertion: await validIdJag() });
    expect(granted.status).toBe(200);
    // Hundreds of anonymous refusals, a handful of log lines: the first, and the rest counted.
    const logged = service.logs.slice(logsBefore).filter((line) => line.includes('ema client refused'));
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(logged.length).toBeLessThanOrEqual(2);
    for (const line of service.logs) expect(line).not.toContain(CLIENT_SECRET);
  });

  it('counts an authenticated client against its own limit, logging each refused grant up to it and answering the rest 429 unlogged', async () => {
    const before = lines('ema grant refused').length;
    const answers = [];
    for (let i = 0; i < TOKEN_REQUESTS_PER_CLIENT.limit + 5; i++) {
      answers.push((await send(`192.0.2.${20 + (i % 3)}`, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET })).status);
    }
    expect(answers.filter((s) => s === 400)).toHaveLength(TOKEN_REQUESTS_PER_CLIENT.limit - 1);
    expect(answers.slice(-5)).toEqual([429, 429, 429, 429, 429]);
    expect(lines('ema grant refused').length - before).toBe(TOKEN_REQUESTS_PER_CLIENT.limit - 1);
  });
});

describe("the EMA token endpoint when the identity provider's keys cannot be read", () => {
  let idp: RunningSimulatedIdp;
  let vendor: TestVendor;
  let service: TestService;
  beforeAll(async () => {
    idp = await startSimulatedIdp();
    vendor = await startTestVendor();
    // Nothing has fetched the keys yet: each grant below fetches them again until one read succeeds.
    service = await startTestService(vendor.url, {
      // TRUST_PROXY: a test can speak from more addresses than loopback, as an attacker with many would.
      env: {
        PUBLIC_URL,
        MCP_AUTH: 'ema',
        EMA_ISSUER: idp.url,
        EMA_JWKS_URL: idp.jwksUrl,
        EMA_CLIENT_ID: CLIENT_ID,
        EMA_CLIENT_SECRET: CLIENT_SECRET,
        TRUST_PROXY: 'true',
      },
    });
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
    await idp?.close();
  });

  const setFault = async (fault: string | null) => {
    const res = await fetch(`${idp.url}/_sim/jwks-fault`, { method: 'PUT', body: JSON.stringify({ fault }) });
    expect(res.status).toBe(200);
  };
  const grantFresh = async () => {
    const login = await (await fetch(`${idp.url}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub: 'U0KEYS' }) })).json();
    const exchanged = await fetch(`${idp.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: login.id_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience: `${PUBLIC_URL}/mcp`,
        client_id: CLIENT_ID,
        scope: 'status:read',
      }),
    });
    const assertion = ((await exchanged.json()) as { access_token: string }).access_token;
    const res = await fetch(`${service.url}/api/oauth.v2.user.access`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('answers 503 temporarily_unavailable with Retry-After for a junk body, a 500, a redirect and a body past the cap, reading only the cap', async () => {
    for (const fault of ['junk', 'error', 'redirect', 'huge']) {
      await setFault(fault);
      const refused = await grantFresh();
      expect(refused.status, fault).toBe(503);
      expect(refused.body, fault).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/keys could not be read/) });
      expect(refused.headers.get('retry-after')).toBe('30');
    }
    // Of the 16 MB offered, the cap was read, and the socket buffers on the way (a few MB on
    // loopback) filled before the cancel reached the sender: nowhere near the whole body.
    const state = await (await fetch(`${idp.url}/_sim/state`)).json();
    expect(state.jwks_bytes_served).toBeLessThan(HUGE_JWKS_BYTES / 2);
    await setFault(null);
    expect((await grantFresh()).status).toBe(200);
  });

  it('answers 503 within the fetch timeout when the key set starts and never ends', async () => {
    const stalling = await startSimulatedIdp();
    const stalled = await startTestService(vendor.url, {
      env: { PUBLIC_URL, MCP_AUTH: 'ema', EMA_ISSUER: idp.url, EMA_JWKS_URL: stalling.jwksUrl, EMA_CLIENT_ID: CLIENT_ID, EMA_CLIENT_SECRET: CLIENT_SECRET },
    });
    try {
      await fetch(`${stalling.url}/_sim/jwks-fault`, { method: 'PUT', body: JSON.stringify({ fault: 'stall' }) });
      const assertion = await (
        await fetch(`${idp.url}/_sim/id-jag`, {
          method: 'POST',
          body: JSON.stringify({ claims: { sub: 'U0KEYS', aud: `${PUBLIC_URL}/mcp`, client_id: CLIENT_ID } }),
        })
      ).json();
      const started = Date.now();
      const res = await fetch(`${stalled.url}/api/oauth.v2.user.access`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: assertion.id_jag,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/5000 ms/) });
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      await stalled.close();
      await stalling.close();
    }
  });
});
