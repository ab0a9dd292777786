/** Deleting one user attribute by name: v1.1's `meta.attributes` entries and v2.0's `remove` paths. */
import { ScimError, type ScimVersion } from './errors.ts';
import { ENTERPRISE_FIELDS, TEXT_FIELDS, type UserRecord } from './records.ts';
import { URNS } from './urns.ts';

/** Splits "<urn>.sub" (v1.1) or "<urn>:sub" (v2.0) into the URN and the sub-attribute path. */
function extensionPart(name: string, urn: string): string | null {
  if (name === urn) return '';
  if (name.startsWith(`${urn}.`) || name.startsWith(`${urn}:`)) return name.slice(urn.length + 1);
  return null;
}

export function deleteUserAttribute(user: UserRecord, name: string, version: ScimVersion): void {
  const urns = URNS[version];
  const enterprise = extensionPart(name, urns.enterprise);
  if (enterprise !== null) {
    if (enterprise === '') {
      for (const f of ENTERPRISE_FIELDS) user.enterprise[f] = null;
      user.enterprise.managerId = null;
    } else if (enterprise === 'manager' || enterprise === 'manager.managerId') user.enterprise.managerId = null;
    else if ((ENTERPRISE_FIELDS as readonly string[]).includes(enterprise)) user.enterprise[enterprise as (typeof ENTERPRISE_FIELDS)[number]] = null;
    else throw new ScimError('invalid_request_payload', `no enterprise attribute ${JSON.stringify(enterprise)}`);
    return;
  }
  const guest = extensionPart(name, urns.guest);
  if (guest !== null) {
    // The whole URN turns a guest back into a full member; ".expiration" only ends the expiry.
    if (guest === '') user.guest = null;
    else if (guest === 'expiration') {
      if (user.guest) user.guest.expiration = null;
    } else throw new ScimError('invalid_request_payload', `no guest attribute ${JSON.stringify(guest)}`);
    return;
  }
  const profile = extensionPart(name, urns.profile);
  if (profile !== null) {
    if (profile !== '' && profile !== 'startDate') throw new ScimError('invalid_request_payload', `no profile attribute ${JSON.stringify(profile)}`);
    user.startDate = null;
    return;
  }
  switch (name) {
    case 'userName':
    case 'nickName':
      throw new ScimError('username_empty', `${name} cannot be deleted`);
    case 'name':
      user.name = { givenName: null, familyName: null, honorificPrefix: null };
      return;
    case 'name.givenName':
    case 'name.familyName':
    case 'name.honorificPrefix':
      user.name[name.slice('name.'.length) as 'givenName'] = null;
      return;
    case 'emails':
      // The primary address cannot go without a replacement; deleting emails drops the secondary.
      user.secondaryEmail = null;
      return;
    case 'phoneNumbers':
      user.primaryPhone = null;
      user.mobilePhone = null;
      return;
    case 'photos':
      user.photo = null;
      return;
    case 'addresses':
    case 'address':
      user.address = null;
      return;
    case 'roles':
      user.role = null;
      return;
    case 'displayName':
    case 'title':
      user[name] = '';
      return;
    case 'password':
    case 'externalId':
    case 'profileUrl':
      throw new ScimError(name === 'password' ? 'password_change_not_allowed' : 'invalid_request_payload', `${name} cannot be updated`);
    default:
      if ((TEXT_FIELDS as readonly string[]).includes(name)) {
        user[name as 'userType'] = null;
        return;
      }
      throw new ScimError('invalid_request_payload', `unknown attribute ${JSON.stringify(name)}`);
  }
}
