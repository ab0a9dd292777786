/** PATCH of users in both styles: v1.1 attributes with meta.attributes deletes, v2.0 PatchOp operations. */
import { describe, expect, it } from 'vitest';
import { control, createUser, PATCH_OP, scim, startScim, V1_CORE, V2_USER } from './scim-helpers.ts';

const ENTERPRISE_V1 = 'urn:scim:schemas:extension:enterprise:1.0';
const ENTERPRISE_V2 = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GUEST_V1 = 'urn:scim:schemas:extension:slack:guest:1.0';
const GUEST_V2 = 'urn:ietf:params:scim:schemas:extension:slack:guest:2.0:User';

const patchV1 = (body: Record<string, unknown>) => ({ method: 'PATCH', body: { schemas: [V1_CORE], ...body } });
const patchV2 = (...Operations: unknown[]) => ({ method: 'PATCH', body: { schemas: [PATCH_OP], Operations } });

describe('PATCH /Users/<id> in v1.1', () => {
  it('changes the attributes sent and leaves the others as they were', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', { title: 'Analyst', displayName: 'Ada' });
    const reply = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ title: 'Countess' }));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ title: 'Countess', displayName: 'Ada', userName: 'ada' });
  });

  it('clears a field sent as a single space', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', { title: 'Analyst', locale: 'en-GB' });
    const reply = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ title: ' ', locale: ' ' }));
    expect(reply.body).toMatchObject({ title: '', locale: null });
  });

  it('deletes the attributes named in meta.attributes', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', {
      schemas: [V1_CORE, ENTERPRISE_V1],
      roles: ['analyst'],
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      [ENTERPRISE_V1]: { department: 'Engines', division: 'R&D' },
    });
    const reply = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ meta: { attributes: ['roles', 'name.familyName', `${ENTERPRISE_V1}.department`] } }));
    expect(reply.body.roles).toEqual([]);
    expect(reply.body.name).toMatchObject({ givenName: 'Ada', familyName: null });
    expect(reply.body[ENTERPRISE_V1]).toMatchObject({ department: null, division: 'R&D' });
  });

  it('turns a guest back into a full member when meta.attributes names the guest URN', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'visitor', 'v1', { schemas: [V1_CORE, GUEST_V1], [GUEST_V1]: { type: 'multi', expiration: '2027-01-01T00:00:00Z' } });
    const noExpiry = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ meta: { attributes: [`${GUEST_V1}.expiration`] } }));
    expect(noExpiry.body[GUEST_V1]).toEqual({ type: 'multi', expiration: null });
    const member = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ meta: { attributes: [GUEST_V1] } }));
    expect(member.body).not.toHaveProperty([GUEST_V1]);
    const filtered = await scim(sim, 'v1', `/Users?filter=${encodeURIComponent('restricted eq true')}`);
    expect(filtered.body.totalResults).toBe(0);
  });

  it('picks the primary email by primary true, else type work, else the first', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1');
    const byWork = await scim(
      sim,
      'v1',
      `/Users/${user.id}`,
      patchV1({
        emails: [
          { value: 'home@example.com', type: 'home' },
          { value: 'work@example.com', type: 'work' },
        ],
      }),
    );
    expect(byWork.body.emails).toEqual([
      { value: 'work@example.com', type: 'work', primary: true },
      { value: 'home@example.com', type: 'home', primary: false },
    ]);
    const byFlag = await scim(
      sim,
      'v1',
      `/Users/${user.id}`,
      patchV1({
        emails: [
          { value: 'a@example.com', type: 'work' },
          { value: 'b@example.com', primary: true },
        ],
      }),
    );
    expect(byFlag.body.emails[0].value).toBe('b@example.com');
  });

  it('deletes the secondary email with operation delete, and refuses to delete the primary without a replacement', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', { emails: [{ value: 'p@example.com', primary: true }, { value: 's@example.com' }] });
    const dropped = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ emails: [{ value: 's@example.com', operation: 'delete' }] }));
    expect(dropped.body.emails).toEqual([{ value: 'p@example.com', type: 'work', primary: true }]);
    const refused = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ emails: [{ value: 'p@example.com', operation: 'delete' }] }));
    expect(refused.body).toEqual({ Errors: { description: 'missing_primary_email', code: 400 } });
  });

  it('sets active false to deactivate and true to re-enable', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ active: false }))).body.active).toBe(false);
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ active: true }))).body.active).toBe(true);
  });

  it('requires managerId when manager is sent, and accepts a userName or email for it', async () => {
    const sim = await startScim();
    const boss = await createUser(sim, 'boss', 'v1');
    const user = await createUser(sim, 'ada', 'v1');
    const bad = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ schemas: [V1_CORE, ENTERPRISE_V1], [ENTERPRISE_V1]: { manager: { name: 'boss' } } }));
    expect(bad.body.Errors.description).toBe('improper_enterprise_schema_format');
    const byName = await scim(
      sim,
      'v1',
      `/Users/${user.id}`,
      patchV1({ schemas: [V1_CORE, ENTERPRISE_V1], [ENTERPRISE_V1]: { manager: { managerId: 'boss@example.com' } } }),
    );
    expect(byName.body[ENTERPRISE_V1].manager.managerId).toBe(boss.id);
  });
});

describe('PATCH /Users/<id> in v2.0', () => {
  it('replaces, adds and removes by path, and answers the full user', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v2', { title: 'Analyst', displayName: 'Ada' });
    const reply = await scim(
      sim,
      'v2',
      `/Users/${user.id}`,
      patchV2(
        { op: 'replace', path: 'title', value: 'Countess' },
        { op: 'add', path: 'timezone', value: 'Europe/London' },
        { op: 'remove', path: 'displayName' },
      ),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: user.id, title: 'Countess', timezone: 'Europe/London', displayName: '', userName: 'ada' });
    expect(reply.body.schemas).toContain(V2_USER);
  });

  it('sets an extension attribute written as <URN>:<attribute>, and removes it', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const set = await scim(sim, 'v2', `/Users/${user.id}`, patchV2({ op: 'replace', path: `${ENTERPRISE_V2}:department`, value: 'Engines' }));
    expect(set.body[ENTERPRISE_V2].department).toBe('Engines');
    const removed = await scim(sim, 'v2', `/Users/${user.id}`, patchV2({ op: 'remove', path: `${ENTERPRISE_V2}:department` }));
    expect(removed.body[ENTERPRISE_V2].department).toBeNull();
  });

  it('takes an operation without a path whose value is an object of attributes', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const reply = await scim(sim, 'v2', `/Users/${user.id}`, patchV2({ op: 'Replace', value: { active: false, title: 'Gone' } }));
    expect(reply.body).toMatchObject({ active: false, title: 'Gone' });
  });

  it('converts a member into a guest through the guest extension path', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const reply = await scim(sim, 'v2', `/Users/${user.id}`, patchV2({ op: 'add', path: GUEST_V2, value: { type: 'multi' } }));
    expect(reply.body[GUEST_V2]).toEqual({ type: 'multi', expiration: null });
  });

  it('refuses the v1.1 style on v2.0, an unknown op, and a body without the PatchOp schema', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const v1Style = await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V2_USER], title: 'x' } });
    expect(v1Style.body.detail).toBe('invalid_request_payload');
    expect((await scim(sim, 'v2', `/Users/${user.id}`, patchV2({ op: 'move', path: 'title', value: 'x' }))).body.detail).toBe('invalid_request_payload');
    expect((await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PATCH', body: { Operations: [] } })).body.detail).toBe('missing_schema_element');
    expect((await scim(sim, 'v2', `/Users/${user.id}`)).body.title).toBe('');
  });

  it('leaves the user untouched when a later operation fails', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const reply = await scim(
      sim,
      'v2',
      `/Users/${user.id}`,
      patchV2({ op: 'replace', path: 'title', value: 'Boss' }, { op: 'replace', path: 'nickName', value: 'n'.repeat(22) }),
    );
    expect(reply.body.detail).toBe('long_nickname');
    expect((await scim(sim, 'v2', `/Users/${user.id}`)).body.title).toBe('');
    await control(sim, 'GET', '/state');
  });
});
