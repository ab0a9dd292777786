/** PATCH in v1.1's attribute style: the attributes to change, plus `meta.attributes` naming those to delete. */
import { ScimError } from './errors.ts';
import { cloneUser, type UserRecord } from './records.ts';
import { isObject } from './user-attributes.ts';
import { deleteUserAttribute } from './user-deletes.ts';
import { applyUserBody, type ManagerLookup, requireSchemas } from './user-writes.ts';
import type { MemberStep } from './directory.ts';

/** `meta.attributes`, if sent: deletions are applied before the attributes in the same body (SCIM 1.1 §3.3.2). */
function metaAttributes(body: Record<string, unknown>): string[] {
  if (body.meta === undefined) return [];
  if (!isObject(body.meta)) throw new ScimError('invalid_attribute_format', 'meta must be an object');
  const names = body.meta.attributes;
  if (names === undefined) return [];
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new ScimError('invalid_attribute_format', 'meta.attributes must be an array of attribute names');
  }
  return names as string[];
}

export function patchUserV1(existing: UserRecord, raw: unknown, lookup: ManagerLookup): UserRecord {
  const { body } = requireSchemas(raw);
  const user = cloneUser(existing);
  for (const name of metaAttributes(body)) deleteUserAttribute(user, name, 'v1');
  const { meta: _meta, ...attributes } = body;
  applyUserBody('v1', user, attributes, 'patch', lookup);
  return user;
}

export type GroupPatch = { displayName: string | null; steps: MemberStep[] };

/** v1.1 group PATCH: members [{value, operation}], where "delete" removes and anything else adds. */
export function groupPatchV1(raw: unknown): GroupPatch {
  const { body } = requireSchemas(raw);
  const steps: MemberStep[] = [];
  // meta.attributes ["members"] empties the group first; the members listed then apply in order.
  for (const name of metaAttributes(body)) {
    if (name !== 'members') throw new ScimError('invalid_request_payload', `a group cannot delete ${JSON.stringify(name)}`);
    steps.push({ kind: 'removeAll' });
  }
  for (const [key, value] of Object.entries(body)) {
    if (key === 'schemas' || key === 'id' || key === 'meta') continue;
    if (key === 'displayName') {
      if (typeof value !== 'string' || value.trim() === '') throw new ScimError('invalid_attribute_format', 'displayName must be a non-empty string');
    } else if (key === 'members') {
      if (!Array.isArray(value)) throw new ScimError('invalid_attribute_format', 'members must be an array');
      for (const m of value) {
        if (!isObject(m) || typeof m.value !== 'string') throw new ScimError('invalid_attribute_format', 'each member needs a string value');
        steps.push({ kind: m.operation === 'delete' ? 'remove' : 'add', ids: [m.value] });
      }
    } else {
      throw new ScimError('invalid_request_payload', `unsupported group attribute ${JSON.stringify(key)}`);
    }
  }
  return { displayName: typeof body.displayName === 'string' ? body.displayName : null, steps };
}
