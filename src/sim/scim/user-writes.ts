/** Turns a POST or PUT body of either version into a user record, checking what each method requires. */
import { ScimError, type ScimVersion } from './errors.ts';
import { blankUser, type UserRecord } from './records.ts';
import { type ApplyMode, applyCoreAttributes, applyEnterprise, applyGuest, applyProfile, isObject } from './user-attributes.ts';
import { URNS } from './urns.ts';

export type ManagerLookup = (ref: string) => string | null;

/** The `schemas` array; its absence is the spec's missing_schema_element. */
export function requireSchemas(body: unknown): { body: Record<string, unknown>; schemas: string[] } {
  if (!isObject(body)) throw new ScimError('invalid_request_payload', 'the body must be a JSON object');
  if (!Array.isArray(body.schemas) || !body.schemas.every((s) => typeof s === 'string')) {
    throw new ScimError('missing_schema_element', 'schemas is missing or not an array of URNs');
  }
  return { body, schemas: body.schemas as string[] };
}

/** Applies the body's attributes and this version's extensions (each URN must also be in schemas). */
export function applyUserBody(version: ScimVersion, user: UserRecord, raw: unknown, mode: ApplyMode, lookup: ManagerLookup): void {
  const { body, schemas } = requireSchemas(raw);
  const urns = URNS[version];
  const core: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const isExtension = key === urns.enterprise || key === urns.guest || key === urns.profile;
    if (!isExtension) {
      core[key] = value;
      continue;
    }
    if (!schemas.includes(key)) throw new ScimError('invalid_request_payload', `extension ${key} is in the body but not in schemas`);
    if (key === urns.enterprise) applyEnterprise(user, value, mode, lookup);
    else if (key === urns.guest) applyGuest(user, value);
    else applyProfile(user, value);
  }
  applyCoreAttributes(user, core, mode);
}

export function userFromCreate(version: ScimVersion, id: string, nowMs: number, raw: unknown, lookup: ManagerLookup): UserRecord {
  const { body } = requireSchemas(raw);
  if (body.userName === undefined) throw new ScimError('username_required', 'userName is required');
  if (body.emails === undefined) throw new ScimError('email_empty', 'at least one email is required');
  const user = blankUser(id, nowMs);
  applyUserBody(version, user, body, 'create', lookup);
  return user;
}

/** PUT: every attribute is overwritten; what the body leaves out becomes blank. */
export function userFromReplace(version: ScimVersion, existing: UserRecord, raw: unknown, lookup: ManagerLookup): UserRecord {
  const { body } = requireSchemas(raw);
  if (body.userName === undefined || body.userName === null) throw new ScimError('username_empty', 'userName is required on PUT');
  if (body.emails === undefined) throw new ScimError('email_empty', 'PUT must carry the primary email');
  const user = blankUser(existing.id, existing.createdMs);
  user.externalId = existing.externalId;
  user.profileUrl = existing.profileUrl;
  // A boolean left out stays as it was: blanking `active` would deactivate people by omission.
  user.active = existing.active;
  user.singleChannelGuest = existing.singleChannelGuest;
  applyUserBody(version, user, body, 'replace', lookup);
  return user;
}
