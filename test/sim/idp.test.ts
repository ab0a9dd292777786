/** The simulated identity provider (src/sim/idp): EMA step 2 over real HTTP, checked with jose as a relying party would. */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_TOKENS_MAX } from '../../src/sim/idp/app.ts';
import { startSimulatedIdp, type RunningSimulatedIdp } from '../../src/sim/idp/index.ts';

const AUDIENCE = 'https://status.example.test/mcp';

describe('simulated identity provider', () => {
  let idp: RunningSimulatedIdp;
  beforeAll(async () => {
    idp = await startSimulatedIdp();
  });
  afterAll(() => idp?.close());

  const login = async (sub: string) => (await fetch(`${idp.url}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub }) })).json();
  const exchange = (subjectToken: string, subjectType: string, scope = 'status:read incidents:read') =>
    fetch(`${idp.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: subjectToken,
        subject_token_type: `urn:ietf:params:oauth:token-type:${subjectType}`,
        audience: AUDIENCE,
        client_id: 'agent-platform',
        scope,
      }),
    });

  it('exchanges an ID token, or a refresh token, for an ID-JAG signed with a key it publishes, living 300 s', async () => {
    const { id_token, refresh_token } = await login('U0ALICE');
    for (const [token, type] of [
      [id_token, 'id_token'],
      [refresh_token, 'refresh_token'],
    ]) {
      const res = await exchange(token, type);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({
        issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        token_type: 'N_A',
        expires_in: 300,
        scope: 'status:read incidents:read',
      });
      const { payload, protectedHeader } = await jwtVerify(body.access_token, createRemoteJWKSet(new URL(idp.jwksUrl)), {
        issuer: idp.url,
        audience: AUDIENCE,
        typ: 'oauth-id-jag+jwt',
      });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({ sub: 'U0ALICE', client_id: 'agent-platform', scope: 'status:read incidents:read' });
      expect(payload.exp! - payload.iat!).toBe(300);
      expect(payload.jti).toEqual(expect.any(String));
    }
  });

  it('narrows the scopes by policy, and refuses when the policy allows none, or the subject token is not its own', async () => {
    const { id_token } = await login('U0BOB');
    await fetch(`${idp.url}/_sim/policy`, { method: 'PUT', body: JSON.stringify({ allowed_scopes: ['status:read'] }) });
    try {
      expect((await (await exchange(id_token, 'id_token')).json()).scope).toBe('status:read');
      const none = await exchange(id_token, 'id_token', 'incidents:read');
      expect(none.status).toBe(400);
      expect(await none.json()).toMatchObject({ error: 'invalid_scope' });
    } finally {
      await fetch(`${idp.url}/_sim/policy`, { method: 'PUT', body: JSON.stringify({ allowed_scopes: null }) });
    }
    const forged = await exchange(`${id_token.split('.').slice(0, 2).join('.')}.AAAA`, 'id_token');
    expect(await forged.json()).toMatchObject({ error: 'invalid_grant' });
    expect(decodeProtectedHeader(id_token).typ).toBe('JWT');
  });

  it(`remembers at most ${REFRESH_TOKENS_MAX} refresh tokens, forgetting the oldest`, async () => {
    const first = (await login('U0FIRST')).refresh_token;
    const before = (await (await fetch(`${idp.url}/_sim/state`)).json()).refresh_tokens;
    for (let i = before; i < REFRESH_TOKENS_MAX + 5; i++)
      await idp.idp.fetch(new Request(`${idp.url}/_sim/login`, { method: 'POST', body: JSON.stringify({ sub: `U${i}` }) }));
    expect((await (await fetch(`${idp.url}/_sim/state`)).json()).refresh_tokens).toBe(REFRESH_TOKENS_MAX);
    expect(await (await exchange(first, 'refresh_token')).json()).toMatchObject({ error: 'invalid_grant' });
  });
});
