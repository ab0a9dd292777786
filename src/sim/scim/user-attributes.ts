/** Reading user attributes from a request body into a record, with the spec's rules and error codes. */
import { ScimError } from './errors.ts';
import { type Address, ENTERPRISE_FIELDS, TEXT_FIELDS, type TextField, type UserRecord } from './records.ts';

export const MAX_USERNAME_LENGTH = 21;
export const MAX_DISPLAY_NAME_LENGTH = 80;

export type ApplyMode = 'create' | 'replace' | 'patch';

type Json = Record<string, unknown>;

const EMOJI = /\p{Extended_Pictographic}/u;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, attribute: string): string {
  if (typeof value !== 'string') throw new ScimError('invalid_attribute_format', `${attribute} must be a string`);
  if (EMOJI.test(value)) throw new ScimError('invalid_emoji_not_allowed', `${attribute} contains an emoji`);
  return value;
}

/** "Periods, underscores, hyphens allowed; other special characters become underscores." */
function underscoreSpecials(value: string, allowSpace: boolean): string {
  return value.replace(allowSpace ? /[^\p{L}\p{M}\p{N}._\- ]/gu : /[^\p{L}\p{M}\p{N}._-]/gu, '_');
}

/**
 * userName and nickName are one field. An e-mail address becomes its local part (cut to 21
 * characters, as the vendor converts it); any other name longer than 21 is refused, with the code
 * of the attribute it came in.
 */
export function normalizeUserName(value: unknown, attribute: 'userName' | 'nickName'): string {
  const raw = text(value, attribute);
  if (raw.trim() === '') throw new ScimError('username_empty', `${attribute} cannot be empty`);
  if (EMAIL.test(raw)) return underscoreSpecials(raw.slice(0, raw.indexOf('@')), false).slice(0, MAX_USERNAME_LENGTH);
  const name = underscoreSpecials(raw, false);
  if ([...name].length > MAX_USERNAME_LENGTH) {
    throw new ScimError(attribute === 'nickName' ? 'long_nickname' : 'username_too_long', `${attribute} is longer than ${MAX_USERNAME_LENGTH} characters`);
  }
  return name;
}

export function normalizeDisplayName(value: unknown): string {
  const raw = text(value, 'displayName');
  if (raw.startsWith('@')) throw new ScimError('invalid_starts_with_at', 'displayName starts with @');
  if (raw.includes('@')) throw new ScimError('invalid_name_specials', 'displayName contains @');
  if ([...raw].length > MAX_DISPLAY_NAME_LENGTH)
    throw new ScimError('invalid_name_maxlength', `displayName is longer than ${MAX_DISPLAY_NAME_LENGTH} characters`);
  return underscoreSpecials(raw, true);
}

type Entry = { value: string; type: string | null; primary: boolean | null; remove: boolean };

/** A multi-valued attribute: an array of {value, type, primary, operation} (roles may be plain strings). */
function entries(value: unknown, attribute: string, code: string, allowStrings = false): Entry[] {
  if (!Array.isArray(value)) throw new ScimError(code, `${attribute} must be an array`);
  return value.map((item) => {
    if (allowStrings && typeof item === 'string') return { value: item, type: null, primary: null, remove: false };
    if (!isObject(item) || typeof item.value !== 'string') throw new ScimError(code, `each ${attribute} entry needs a string value`);
    if (item.type !== undefined && typeof item.type !== 'string') throw new ScimError(code, `${attribute}.type must be a string`);
    if (item.primary !== undefined && typeof item.primary !== 'boolean') throw new ScimError(code, `${attribute}.primary must be true or false`);
    return {
      value: item.value,
      type: (item.type as string | undefined) ?? null,
      primary: (item.primary as boolean | undefined) ?? null,
      remove: item.operation === 'delete',
    };
  });
}

/** The one entry to keep: the primary one, else the first. */
function primaryOrFirst(list: Entry[]): Entry | undefined {
  return list.find((e) => e.primary === true) ?? list[0];
}

function applyEmails(user: UserRecord, value: unknown, mode: ApplyMode): void {
  const list = entries(value, 'emails', 'emails_invalid');
  for (const e of list) if (!EMAIL.test(e.value)) throw new ScimError('bad_email_address', `${JSON.stringify(e.value)} is not an email address`);
  const removals = mode === 'patch' ? list.filter((e) => e.remove) : [];
  const kept = mode === 'patch' ? list.filter((e) => !e.remove) : list;
  // primary true wins; else the work address; else the first given.
  const primary = kept.find((e) => e.primary === true) ?? kept.find((e) => e.primary === null && e.type === 'work') ?? kept[0];
  const secondary = kept.find((e) => e !== primary);
  for (const r of removals) {
    const value = r.value.toLowerCase();
    if (value === user.primaryEmail.toLowerCase() && !primary)
      throw new ScimError('missing_primary_email', 'the primary email cannot be removed without a replacement');
    if (value === user.secondaryEmail?.toLowerCase()) user.secondaryEmail = null;
  }
  if (mode !== 'patch' && !primary) throw new ScimError('email_empty', 'at least one email is required');
  if (primary) user.primaryEmail = primary.value;
  if (secondary) user.secondaryEmail = secondary.value;
  else if (mode !== 'patch') user.secondaryEmail = null;
}

function applyPhones(user: UserRecord, value: unknown, mode: ApplyMode): void {
  const list = entries(value, 'phoneNumbers', 'phoneNumbers_invalid');
  if (mode !== 'patch') {
    user.primaryPhone = null;
    user.mobilePhone = null;
  }
  for (const e of list) {
    // The spec's slot rule: primary true or type mobile go to primaryPhone; type work (or a
    // non-primary number beside a primary one) goes to mobilePhone.
    const toPrimary =
      e.primary === true ||
      (e.type === 'mobile' && e.primary !== false) ||
      (e.primary === null && e.type !== 'work' && !list.some((o) => o !== e && o.primary === true));
    if (e.remove) {
      if (user.primaryPhone === e.value) user.primaryPhone = null;
      if (user.mobilePhone === e.value) user.mobilePhone = null;
    } else if (toPrimary) user.primaryPhone = e.value;
    else user.mobilePhone = e.value;
  }
}

function applySingle(value: unknown, attribute: string, code: string, current: string | null, mode: ApplyMode, allowStrings = false): string | null {
  const list = entries(value, attribute, code, allowStrings);
  const removed = mode === 'patch' && list.some((e) => e.remove && e.value === current);
  const kept = primaryOrFirst(list.filter((e) => !e.remove));
  if (kept) return kept.value;
  return removed || mode !== 'patch' ? null : current;
}

const ADDRESS_FIELDS = ['streetAddress', 'locality', 'region', 'postalCode', 'country'] as const;

function applyAddresses(user: UserRecord, value: unknown, mode: ApplyMode): void {
  if (!Array.isArray(value) || !value.every(isObject)) throw new ScimError('addresses_invalid', 'addresses must be an array of objects');
  const parsed = value.map((item) => {
    const address = {} as Address;
    for (const key of Object.keys(item)) {
      if (!(ADDRESS_FIELDS as readonly string[]).includes(key) && key !== 'primary' && key !== 'operation' && key !== 'type') {
        throw new ScimError('addresses_invalid', `addresses support only ${ADDRESS_FIELDS.join(', ')}, not ${key}`);
      }
    }
    for (const field of ADDRESS_FIELDS) {
      const v = item[field];
      if (v !== undefined && v !== null && typeof v !== 'string') throw new ScimError('addresses_invalid', `addresses.${field} must be a string`);
      address[field] = (v as string | null | undefined) ?? null;
    }
    return { address, primary: item.primary === true, remove: item.operation === 'delete' };
  });
  const current = user.address;
  for (const r of parsed.filter((p) => p.remove)) {
    // Deleted only when all five sub-attributes match what is stored.
    if (current && ADDRESS_FIELDS.every((f) => r.address[f] === current[f])) user.address = null;
  }
  const kept = parsed.filter((p) => !p.remove);
  const chosen = kept.find((p) => p.primary) ?? kept[0];
  if (chosen) user.address = chosen.address;
  else if (mode !== 'patch') user.address = null;
}

function optionalText(value: unknown, attribute: string): string | null {
  if (value === null) return null;
  return text(value, attribute);
}

function applyName(user: UserRecord, value: unknown, mode: ApplyMode): void {
  if (!isObject(value)) throw new ScimError('invalid_attribute_format', 'name must be an object');
  if (mode !== 'patch') user.name = { givenName: null, familyName: null, honorificPrefix: null };
  for (const key of ['givenName', 'familyName', 'honorificPrefix'] as const) {
    if (value[key] !== undefined) user.name[key] = optionalText(value[key], `name.${key}`);
  }
  const { givenName, familyName } = user.name;
  if (givenName !== null && familyName !== null && givenName !== '' && familyName !== '' && givenName.trim() === '' && familyName.trim() === '') {
    throw new ScimError('invalid_name_required', 'givenName and familyName are both only spaces');
  }
}

function applyTextField(user: UserRecord, field: TextField, value: unknown, mode: ApplyMode): void {
  // In a v1.1 PATCH, a single space clears the field.
  const cleared = mode === 'patch' && value === ' ';
  if (field === 'displayName') {
    user.displayName = cleared || value === null ? '' : normalizeDisplayName(value);
  } else if (field === 'title') {
    user.title = cleared || value === null ? '' : text(value, field);
  } else {
    user[field] = cleared || value === null ? null : text(value, field);
  }
}

/** Core attributes every version names alike; extensions are the caller's (their keys are URNs). */
export const CORE_KEYS = new Set([
  'schemas',
  'id',
  'meta',
  'groups',
  'externalId',
  'password',
  'profileUrl',
  'userName',
  'nickName',
  'name',
  ...TEXT_FIELDS,
  'active',
  'emails',
  'phoneNumbers',
  'photos',
  'addresses',
  'roles',
]);

export function applyCoreAttributes(user: UserRecord, body: Json, mode: ApplyMode): void {
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    switch (key) {
      case 'schemas':
      case 'id':
      case 'meta':
      case 'groups': // read-only membership: groups are changed through /Groups
        break;
      case 'externalId':
        // Kept when a user is created; "updates to it are unsupported", so later values are ignored.
        if (mode === 'create') user.externalId = text(value, key);
        break;
      case 'profileUrl':
        if (mode === 'create') user.profileUrl = optionalText(value, key);
        break;
      case 'password':
        if (mode !== 'create') throw new ScimError('password_change_not_allowed', 'passwords cannot be changed through SCIM');
        break;
      case 'userName':
      case 'nickName':
        if (mode === 'patch' && (value === ' ' || value === '')) throw new ScimError('username_empty', `${key} cannot be empty`);
        user.userName = normalizeUserName(value, key);
        break;
      case 'name':
        applyName(user, value, mode);
        break;
      case 'active':
        if (typeof value !== 'boolean') throw new ScimError('invalid_attribute_format', 'active must be true or false');
        user.active = value;
        break;
      case 'emails':
        applyEmails(user, value, mode);
        break;
      case 'phoneNumbers':
        applyPhones(user, value, mode);
        break;
      case 'photos':
        user.photo = applySingle(value, key, 'photos_invalid', user.photo, mode);
        break;
      case 'roles':
        user.role = applySingle(value, key, 'roles_invalid', user.role, mode, true);
        break;
      case 'addresses':
        applyAddresses(user, value, mode);
        break;
      default:
        if ((TEXT_FIELDS as readonly string[]).includes(key)) applyTextField(user, key as TextField, value, mode);
        else throw new ScimError('invalid_request_payload', `unsupported attribute ${JSON.stringify(key)}`);
    }
  }
}

/** The enterprise extension: only the sub-attributes sent change; a manager needs its managerId. */
export function applyEnterprise(user: UserRecord, value: unknown, mode: ApplyMode, resolveManager: (ref: string) => string | null): void {
  if (!isObject(value)) throw new ScimError('invalid_attribute_format', 'the enterprise extension must be an object');
  if (mode === 'replace') for (const f of ENTERPRISE_FIELDS) user.enterprise[f] = null;
  for (const [key, v] of Object.entries(value)) {
    if (key === 'manager') {
      if (v === null) {
        user.enterprise.managerId = null;
        continue;
      }
      if (!isObject(v) || typeof v.managerId !== 'string') throw new ScimError('improper_enterprise_schema_format', 'manager needs a managerId');
      const managerId = resolveManager(v.managerId);
      if (managerId === null) throw new ScimError('no_such_user', `manager ${JSON.stringify(v.managerId)} is not in the directory`);
      user.enterprise.managerId = managerId;
    } else if ((ENTERPRISE_FIELDS as readonly string[]).includes(key)) {
      user.enterprise[key as (typeof ENTERPRISE_FIELDS)[number]] = mode === 'patch' && v === ' ' ? null : optionalText(v, key);
    } else {
      throw new ScimError('invalid_request_payload', `the enterprise extension has no attribute ${JSON.stringify(key)}`);
    }
  }
}

export function applyGuest(user: UserRecord, value: unknown): void {
  if (!isObject(value)) throw new ScimError('invalid_attribute_format', 'the guest extension must be an object');
  if (value.type !== 'multi') throw new ScimError('invalid_attribute_format', 'the guest extension needs type "multi"');
  if (value.expiration !== undefined && value.expiration !== null && typeof value.expiration !== 'string') {
    throw new ScimError('invalid_attribute_format', 'guest expiration must be an ISO 8601 string');
  }
  user.guest = { expiration: (value.expiration as string | null | undefined) ?? null };
  user.singleChannelGuest = false;
}

export function applyProfile(user: UserRecord, value: unknown): void {
  if (!isObject(value)) throw new ScimError('invalid_attribute_format', 'the profile extension must be an object');
  if (value.startDate !== undefined) user.startDate = optionalText(value.startDate, 'startDate');
}
