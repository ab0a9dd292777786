/** Authentication, versions and endpoints of the simulated SCIM service, as a client meets them. */
import { describe, expect, it } from 'vitest';
import { control, scim, startScim, v2Error } from './scim-helpers.ts';

describe('SCIM authentication', () => {
  it('answers a request without a token with missing_authentication', async () => {
    const sim = await startScim();
    const reply = await scim(sim, 'v2', '/Users', { token: null });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(v2Error('missing_authentication', 401));
  });

  it('answers a wrong token, and a right token not sent as Bearer, with invalid_authentication', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { token: 'xoxp-wrong' })).body).toEqual(v2Error('invalid_authentication', 401));
    const basic = await scim(sim, 'v2', '/Users', { token: null, headers: { Authorization: `Basic ${sim.token}` } });
    expect(basic.status).toBe(401);
    expect(basic.body.detail).toBe('invalid_authentication');
    expect((await scim(sim, 'v2', '/Users')).status).toBe(200);
  });

  it('takes the token it was started with', async () => {
    const sim = await startScim({ token: 'xoxp-custom' });
    expect((await scim(sim, 'v2', '/Users', { token: 'xoxp-custom' })).status).toBe(200);
    expect((await scim(sim, 'v2', '/Users', { token: 'xoxp-scim-sim-token' })).status).toBe(401);
  });

  it('refuses every call of a workspace on the wrong plan or install, with the spec code', async () => {
    const sim = await startScim();
    for (const code of ['plus_teams_only', 'non_org_teams_only', 'permission_denied']) {
      await control(sim, 'PUT', '/workspace', { refuse: code });
      const reply = await scim(sim, 'v2', '/Users');
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual(v2Error(code, 403));
    }
    await control(sim, 'PUT', '/workspace', { refuse: null });
    expect((await scim(sim, 'v2', '/Users')).status).toBe(200);
  });

  it('sends v1.1 errors in the v1.1 body, not the v2.0 one', async () => {
    const sim = await startScim();
    const reply = await scim(sim, 'v1', '/Users', { token: null });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ Errors: { description: 'missing_authentication', code: 401 } });
  });
});

describe('SCIM versions and endpoints', () => {
  it('refuses a version other than v1 and v2 with unsupported_version', async () => {
    const sim = await startScim();
    const res = await fetch(`${sim.url}/scim/v3/Users`, { headers: { Authorization: `Bearer ${sim.token}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(v2Error('unsupported_version', 404));
  });

  it('answers a path that is no endpoint with bad_endpoint', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Channels')).body).toEqual(v2Error('bad_endpoint', 404));
    expect((await scim(sim, 'v2', '/Users/U1/extra')).body.detail).toBe('bad_endpoint');
  });

  it('answers an unsupported method with method_not_allowed', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { method: 'OPTIONS' })).body).toEqual(v2Error('method_not_allowed', 405));
    expect((await scim(sim, 'v2', '/ServiceProviderConfig', { method: 'POST', body: {} })).status).toBe(405);
  });

  it('asks for the id when a change names no user or group', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users/', { method: 'DELETE' })).body.detail).toBe('missing_user_id');
    expect((await scim(sim, 'v2', '/Groups/', { method: 'PATCH', body: {} })).body.detail).toBe('missing_group_id');
  });

  it('lists groups at GET /Groups/ as the spec writes it, and at /Groups', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Groups/')).status).toBe(200);
    expect((await scim(sim, 'v1', '/Groups')).status).toBe(200);
  });
});

describe('SCIM configuration endpoints per version', () => {
  it('v1.1 has ServiceProviderConfigs (plural) and no ResourceTypes or Schemas list', async () => {
    const sim = await startScim();
    const config = await scim(sim, 'v1', '/ServiceProviderConfigs');
    expect(config.status).toBe(200);
    expect(config.body.filter.supported).toBe(true);
    expect(config.body.patch.supported).toBe(true);
    expect((await scim(sim, 'v1', '/ServiceProviderConfig')).body).toEqual({ Errors: { description: 'bad_endpoint', code: 404 } });
    expect((await scim(sim, 'v1', '/ResourceTypes')).status).toBe(404);
    expect((await scim(sim, 'v1', '/Schemas')).status).toBe(404);
  });

  it('v2.0 has ServiceProviderConfig (singular), ResourceTypes and Schemas', async () => {
    const sim = await startScim();
    const config = await scim(sim, 'v2', '/ServiceProviderConfig');
    expect(config.body.schemas).toEqual(['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig']);
    expect(config.body.filter.supported).toBe(false);
    expect((await scim(sim, 'v2', '/ServiceProviderConfigs')).status).toBe(404);
    const types = await scim(sim, 'v2', '/ResourceTypes');
    expect(types.body.Resources.map((t: { id: string }) => t.id)).toEqual(['User', 'Group']);
    const schemas = await scim(sim, 'v2', '/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toContain('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
  });

  it('both versions answer Schemas/Users with the guest extension schema, in their own URNs', async () => {
    const sim = await startScim();
    const v1 = await scim(sim, 'v1', '/Schemas/Users');
    expect(v1.body.Resources.map((s: { id: string }) => s.id)).toEqual(['urn:scim:schemas:core:1.0', 'urn:scim:schemas:extension:slack:guest:1.0']);
    const v2 = await scim(sim, 'v2', '/Schemas/Users');
    expect(v2.body.Resources.map((s: { id: string }) => s.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:extension:slack:guest:2.0:User',
    ]);
    expect((await scim(sim, 'v2', '/Schemas/Groups')).body.id).toBe('urn:ietf:params:scim:schemas:core:2.0:Group');
    expect((await scim(sim, 'v1', '/Schemas/Groups')).body.id).toBe('urn:scim:schemas:core:1.0');
  });
});
