/** Users in the simulated SCIM service: create, read, PUT, DELETE and the spec's attribute rules. */
import { describe, expect, it } from 'vitest';
import { control, createUser, newUser, scim, startScim, V1_CORE, V2_USER, v2Error } from './scim-helpers.ts';

describe('POST /Users', () => {
  it('creates a user and answers the full v2.0 resource with groups empty', async () => {
    const sim = await startScim();
    const reply = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ada', { displayName: 'Ada Lovelace', title: 'Analyst' }) });
    expect(reply.status).toBe(201);
    expect(reply.body.id).toMatch(/^[UW]/);
    expect(reply.body).toMatchObject({
      userName: 'ada',
      nickName: 'ada',
      displayName: 'Ada Lovelace',
      title: 'Analyst',
      active: true,
      groups: [],
      externalId: '',
    });
    expect(reply.body.schemas).toContain(V2_USER);
    expect(reply.body.meta.location).toBe(`${sim.url}/scim/v2/Users/${reply.body.id}`);
    expect(reply.body.meta.created).toBe('2026-11-23T09:00:00+00:00');
    // Empty values come back as null or empty string, as the spec says.
    expect(reply.body.userType).toBeNull();
    expect(reply.body['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'].manager.managerId).toBeNull();
    expect((await scim(sim, 'v2', `/Users/${reply.body.id}`)).body).toEqual(reply.body);
  });

  it('shows a v1.1 user with v1.1 URNs and the v1 location', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'grace', 'v1');
    expect(user.schemas).toContain(V1_CORE);
    expect(user).toHaveProperty(['urn:scim:schemas:extension:enterprise:1.0']);
    expect(user.meta.location).toBe(`${sim.url}/scim/v1/Users/${user.id}`);
  });

  it('refuses a body without schemas with missing_schema_element (400)', async () => {
    const sim = await startScim();
    const { schemas: _schemas, ...body } = newUser('v2', 'ada');
    const reply = await scim(sim, 'v2', '/Users', { method: 'POST', body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(v2Error('missing_schema_element', 400));
  });

  it('requires a userName and an email', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: { schemas: [V2_USER], emails: [{ value: 'a@example.com' }] } })).body.detail).toBe(
      'username_required',
    );
    expect(
      (await scim(sim, 'v2', '/Users', { method: 'POST', body: { schemas: [V2_USER], userName: '', emails: [{ value: 'a@example.com' }] } })).body.detail,
    ).toBe('username_empty');
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: { schemas: [V2_USER], userName: 'ada' } })).body.detail).toBe('email_empty');
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ada', { emails: [{ value: 'not-an-address' }] }) })).body.detail).toBe(
      'bad_email_address',
    );
  });

  it('keeps userName and nickName unique with username_taken, and primary emails with email_taken', async () => {
    const sim = await startScim();
    await createUser(sim, 'ada');
    const again = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ADA', { emails: [{ value: 'other@example.com' }] }) });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('username_taken');
    const sameEmail = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'bob', { emails: [{ value: 'ada@example.com' }] }) });
    expect(sameEmail.body.detail).toBe('email_taken');
  });

  it('refuses an attribute the service does not have, and an extension missing from schemas', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ada', { shoeSize: 42 }) })).body.detail).toBe('invalid_request_payload');
    const ext = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ada', { [ext]: { department: 'R&D' } }) })).body.detail).toBe(
      'invalid_request_payload',
    );
    const ok = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'ada', { schemas: [V2_USER, ext], [ext]: { department: 'R&D' } }) });
    expect(ok.body[ext].department).toBe('R&D');
  });

  it('creates a multi-channel guest from the guest extension', async () => {
    const sim = await startScim();
    const guest = 'urn:ietf:params:scim:schemas:extension:slack:guest:2.0:User';
    const user = await createUser(sim, 'visitor', 'v2', { schemas: [V2_USER, guest], [guest]: { type: 'multi', expiration: '2027-01-01T00:00:00Z' } });
    expect(user[guest]).toEqual({ type: 'multi', expiration: '2027-01-01T00:00:00Z' });
    const wrongType = await scim(sim, 'v2', '/Users', {
      method: 'POST',
      body: newUser('v2', 'v2guest', { schemas: [V2_USER, guest], [guest]: { type: 'single' } }),
    });
    expect(wrongType.body.detail).toBe('invalid_attribute_format');
  });
});

describe('userName and nickName', () => {
  it('are one field: setting either sets the other', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const v1 = await scim(sim, 'v1', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], nickName: 'countess' } });
    expect(v1.body).toMatchObject({ userName: 'countess', nickName: 'countess' });
    const v2 = await scim(sim, 'v2', `/Users/${user.id}`, {
      method: 'PATCH',
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'userName', value: 'ada_l' }] },
    });
    expect(v2.body).toMatchObject({ userName: 'ada_l', nickName: 'ada_l' });
  });

  it('take 21 characters; 22 is username_too_long for userName and long_nickname for nickName', async () => {
    const sim = await startScim();
    const name21 = 'a'.repeat(21);
    const user = await createUser(sim, name21);
    expect(user.userName).toBe(name21);
    const long = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'b'.repeat(22)) });
    expect(long.status).toBe(400);
    expect(long.body.detail).toBe('username_too_long');
    const nick = await scim(sim, 'v1', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], nickName: 'c'.repeat(22) } });
    expect(nick.body).toEqual({ Errors: { description: 'long_nickname', code: 400 } });
    expect((await scim(sim, 'v2', `/Users/${user.id}`)).body.userName).toBe(name21);
  });

  it('cannot be emptied, neither on PATCH nor on PUT', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], userName: ' ' } })).body.Errors.description).toBe(
      'username_empty',
    );
    expect((await scim(sim, 'v1', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], nickName: '' } })).body.Errors.description).toBe(
      'username_empty',
    );
    const { userName: _u, ...noName } = newUser('v2', 'ada');
    expect((await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PUT', body: noName })).body.detail).toBe('username_empty');
  });

  it('turn an e-mail address into a username and other special characters into underscores', async () => {
    const sim = await startScim();
    const mail = (value: string) => ({ emails: [{ value }] });
    expect((await createUser(sim, 'ada.lovelace@example.org', 'v2', mail('ada@example.org'))).userName).toBe('ada.lovelace');
    expect((await createUser(sim, 'grace hopper!', 'v2', mail('grace@example.org'))).userName).toBe('grace_hopper_');
    expect((await createUser(sim, 'a-b_c.d')).userName).toBe('a-b_c.d');
  });
});

describe('displayName', () => {
  it('takes 80 characters; 81 is invalid_name_maxlength', async () => {
    const sim = await startScim();
    expect((await createUser(sim, 'ada', 'v2', { displayName: 'd'.repeat(80) })).displayName).toHaveLength(80);
    const long = await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'bob', { displayName: 'd'.repeat(81) }) });
    expect(long.body.detail).toBe('invalid_name_maxlength');
  });

  it('refuses a leading @ and an @ inside, turns other specials into underscores', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'a1', { displayName: '@ada' }) })).body.detail).toBe(
      'invalid_starts_with_at',
    );
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'a2', { displayName: 'ada@home' }) })).body.detail).toBe(
      'invalid_name_specials',
    );
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: newUser('v2', 'a3', { displayName: 'Ada 🚀' }) })).body.detail).toBe(
      'invalid_emoji_not_allowed',
    );
    expect((await createUser(sim, 'a4', 'v2', { displayName: 'Ada (R&D) Lovelace-King' })).displayName).toBe('Ada _R_D_ Lovelace-King');
  });
});

describe('GET, PUT and DELETE /Users/<id>', () => {
  it('answers an unknown id with no_such_user and a malformed one with cannot_decode_user_id', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users/U999999')).body).toEqual(v2Error('no_such_user', 404));
    expect((await scim(sim, 'v2', '/Users/not-an-id')).body.detail).toBe('cannot_decode_user_id');
  });

  it('PUT overwrites every attribute: what it leaves out becomes blank', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v2', { title: 'Analyst', userType: 'Employee', name: { givenName: 'Ada', familyName: 'Lovelace' } });
    const put = await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PUT', body: newUser('v2', 'ada', { displayName: 'Ada' }) });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ title: '', userType: null, displayName: 'Ada', name: { givenName: null, familyName: null } });
  });

  it('DELETE deactivates: the user stays, with active false, and PUT with active true re-enables', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const del = await scim(sim, 'v2', `/Users/${user.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await scim(sim, 'v2', `/Users/${user.id}`)).body.active).toBe(false);
    expect((await scim(sim, 'v2', '/Users')).body.totalResults).toBe(1);
    const put = await scim(sim, 'v2', `/Users/${user.id}`, { method: 'PUT', body: newUser('v2', 'ada', { active: true }) });
    expect(put.body.active).toBe(true);
  });

  it('a deactivated user leaves every group', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada');
    const group = await control(sim, 'POST', '/groups', { displayName: 'eng', members: [user.id] });
    await scim(sim, 'v1', `/Users/${user.id}`, { method: 'DELETE' });
    expect((await scim(sim, 'v2', `/Groups/${group.id}`)).body.members).toEqual([]);
  });

  it('refuses a password change with password_change_not_allowed and keeps the user as it was', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v2', { password: 'initial-secret' });
    expect(user).not.toHaveProperty('password');
    const reply = await scim(sim, 'v1', `/Users/${user.id}`, { method: 'PATCH', body: { schemas: [V1_CORE], title: 'Boss', password: 'x' } });
    expect(reply.body.Errors.description).toBe('password_change_not_allowed');
    expect((await scim(sim, 'v2', `/Users/${user.id}`)).body.title).toBe('');
  });

  it('answers a body that is not JSON with invalid_request_payload', async () => {
    const sim = await startScim();
    expect((await scim(sim, 'v2', '/Users', { method: 'POST', body: '{"schemas": [' })).body).toEqual(v2Error('invalid_request_payload', 400));
  });
});
