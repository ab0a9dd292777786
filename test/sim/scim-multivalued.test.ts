/** The spec's slot rules for multi-valued user attributes: emails, phone numbers, photos, addresses, roles. */
import { describe, expect, it } from 'vitest';
import { createUser, scim, startScim, V1_CORE } from './scim-helpers.ts';

const patchV1 = (body: Record<string, unknown>) => ({ method: 'PATCH', body: { schemas: [V1_CORE], ...body } });

describe('multi-valued attributes', () => {
  it('stores two emails at most: the primary and a secondary', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', { emails: [{ value: 'a@example.com' }, { value: 'b@example.com' }, { value: 'c@example.com' }] });
    expect(user.emails.map((e: { value: string }) => e.value)).toEqual(['a@example.com', 'b@example.com']);
  });

  it('phone numbers: primary true or type mobile go to primaryPhone, type work to mobilePhone; each slot deleted by value', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1');
    const set = await scim(
      sim,
      'v1',
      `/Users/${user.id}`,
      patchV1({
        phoneNumbers: [
          { value: '+1 555 0100', primary: true },
          { value: '+1 555 0199', type: 'work' },
        ],
      }),
    );
    // Returned: the mobilePhone slot has type mobile, the primaryPhone slot primary true.
    expect(set.body.phoneNumbers).toEqual([
      { value: '+1 555 0100', type: 'work', primary: true },
      { value: '+1 555 0199', type: 'mobile', primary: false },
    ]);
    const mobile = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ phoneNumbers: [{ value: '+1 555 0111', type: 'mobile' }] }));
    expect(mobile.body.phoneNumbers[0]).toEqual({ value: '+1 555 0111', type: 'work', primary: true });
    const deleted = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ phoneNumbers: [{ value: '+1 555 0199', operation: 'delete' }] }));
    expect(deleted.body.phoneNumbers).toEqual([{ value: '+1 555 0111', type: 'work', primary: true }]);
  });

  it('photos and roles keep one: the primary entry, else the first; roles may be plain strings', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1', {
      photos: [{ value: 'https://example.com/a.png' }, { value: 'https://example.com/b.png', primary: true }],
      roles: ['analyst', 'engineer'],
    });
    expect(user.photos).toEqual([{ value: 'https://example.com/b.png', type: 'photo', primary: true }]);
    expect(user.roles).toEqual([{ value: 'analyst', primary: true }]);
    const roles = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ roles: [{ value: 'x' }, { value: 'lead', primary: true }] }));
    expect(roles.body.roles).toEqual([{ value: 'lead', primary: true }]);
    const gone = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ roles: [{ value: 'lead', operation: 'delete' }] }));
    expect(gone.body.roles).toEqual([]);
  });

  it('an address is deleted only when all five sub-attributes match', async () => {
    const sim = await startScim();
    const home = { streetAddress: '1 Main St', locality: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' };
    const user = await createUser(sim, 'ada', 'v1', { addresses: [home] });
    expect(user.addresses).toEqual([{ ...home, primary: true }]);
    const partial = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ addresses: [{ ...home, postalCode: '00000', operation: 'delete' }] }));
    expect(partial.body.addresses).toHaveLength(1);
    const full = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ addresses: [{ ...home, operation: 'delete' }] }));
    expect(full.body.addresses).toEqual([]);
    const bad = await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ addresses: [{ ...home, floor: '3' }] }));
    expect(bad.body.Errors.description).toBe('addresses_invalid');
  });

  it('refuses attributes of the wrong shape with their own codes', async () => {
    const sim = await startScim();
    const user = await createUser(sim, 'ada', 'v1');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ emails: 'a@example.com' }))).body.Errors.description).toBe('emails_invalid');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ phoneNumbers: [{ number: 1 }] }))).body.Errors.description).toBe('phoneNumbers_invalid');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ photos: {} }))).body.Errors.description).toBe('photos_invalid');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ roles: [7] }))).body.Errors.description).toBe('roles_invalid');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ title: 7 }))).body.Errors.description).toBe('invalid_attribute_format');
    expect((await scim(sim, 'v1', `/Users/${user.id}`, patchV1({ name: { givenName: '  ', familyName: ' ' } }))).body.Errors.description).toBe(
      'invalid_name_required',
    );
  });
});
