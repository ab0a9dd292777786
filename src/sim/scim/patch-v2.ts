/** PATCH in v2.0's style: a PatchOp message whose Operations add, replace or remove by path. */
import { ScimError } from './errors.ts';
import { cloneUser, type UserRecord } from './records.ts';
import { isObject } from './user-attributes.ts';
import { deleteUserAttribute } from './user-deletes.ts';
import { applyUserBody, type ManagerLookup } from './user-writes.ts';
import { PATCH_OP_URN, URNS } from './urns.ts';
import type { GroupPatch } from './patch-v1.ts';
import type { MemberStep } from './directory.ts';

export type PatchOperation = { op: 'add' | 'replace' | 'remove'; path: string | null; value: unknown };

// A client sending more operations than this is not provisioning one person.
export const MAX_OPERATIONS = 1000;

export function parsePatchOp(raw: unknown): PatchOperation[] {
  if (!isObject(raw)) throw new ScimError('invalid_request_payload', 'the body must be a JSON object');
  if (!Array.isArray(raw.schemas)) throw new ScimError('missing_schema_element', 'schemas is missing');
  if (!raw.schemas.includes(PATCH_OP_URN)) throw new ScimError('invalid_request_payload', `schemas must list ${PATCH_OP_URN}`);
  if (!Array.isArray(raw.Operations) || raw.Operations.length === 0) throw new ScimError('invalid_request_payload', 'Operations must be a non-empty array');
  if (raw.Operations.length > MAX_OPERATIONS) throw new ScimError('invalid_request_payload', `at most ${MAX_OPERATIONS} operations per request`);
  return raw.Operations.map((item: unknown, i: number) => {
    if (!isObject(item)) throw new ScimError('invalid_request_payload', `Operations[${i}] must be an object`);
    // RFC 7644 §3.5.2: op values are case-insensitive (Azure AD sends "Replace").
    const op = typeof item.op === 'string' ? item.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove')
      throw new ScimError('invalid_request_payload', `Operations[${i}].op must be add, replace or remove`);
    if (item.path !== undefined && typeof item.path !== 'string') throw new ScimError('invalid_request_payload', `Operations[${i}].path must be a string`);
    return { op, path: (item.path as string | undefined) ?? null, value: item.value };
  });
}

/** Turns "<urn>:<attr>" into the body a v1-style apply understands: {<urn>: {<attr>: value}}. */
function bodyForPath(path: string, value: unknown): Record<string, unknown> {
  const urns = URNS.v2;
  for (const urn of [urns.enterprise, urns.guest, urns.profile]) {
    if (path === urn) return { schemas: [urn], [urn]: value };
    if (path.startsWith(`${urn}:`)) {
      const attribute = path.slice(urn.length + 1);
      const nested = attribute === 'manager.managerId' ? { manager: { managerId: value } } : { [attribute]: value };
      return { schemas: [urn], [urn]: nested };
    }
  }
  if (path.startsWith('name.')) return { schemas: [], name: { [path.slice(5)]: value } };
  // "address" is the spec's name for the single stored address.
  if (path === 'address') return { schemas: [], addresses: Array.isArray(value) ? value : [value] };
  return { schemas: [], [path]: value };
}

export function patchUserV2(existing: UserRecord, raw: unknown, lookup: ManagerLookup): UserRecord {
  const user = cloneUser(existing);
  for (const operation of parsePatchOp(raw)) {
    if (operation.op === 'remove') {
      if (operation.path === null) throw new ScimError('invalid_request_payload', 'remove needs a path');
      deleteUserAttribute(user, operation.path, 'v2');
      continue;
    }
    if (operation.path === null) {
      if (!isObject(operation.value)) throw new ScimError('invalid_request_payload', `${operation.op} without a path needs an object value`);
      const extensions = Object.keys(operation.value).filter((k) => k.startsWith('urn:'));
      applyUserBody('v2', user, { schemas: extensions, ...operation.value }, 'patch', lookup);
    } else {
      applyUserBody('v2', user, bodyForPath(operation.path, operation.value), 'patch', lookup);
    }
  }
  return user;
}

const ONE_MEMBER = /^members\[value eq (?:"([^"]+)"|([^\s\]"]+))\]$/i;

function memberValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => {
    if (!isObject(m) || typeof m.value !== 'string') throw new ScimError('invalid_attribute_format', 'members must be objects with a string value');
    return m.value;
  });
}

/**
 * v2.0 group PATCH: replace members (all of them), add members, remove members (all, or one by
 * `members[value eq "<id>"]`, or those listed in value), replace displayName.
 */
export function groupPatchV2(raw: unknown): GroupPatch {
  let displayName: string | null = null;
  const steps: MemberStep[] = [];
  for (const operation of parsePatchOp(raw)) {
    const path = operation.path;
    const one = path === null ? null : ONE_MEMBER.exec(path);
    if (one) {
      if (operation.op !== 'remove') throw new ScimError('invalid_request_payload', `${operation.op} cannot take a filtered members path`);
      steps.push({ kind: 'remove', ids: [(one[1] ?? one[2]) as string] });
    } else if (path !== null && path.toLowerCase() === 'members') {
      if (operation.op === 'remove') {
        steps.push(operation.value === undefined ? { kind: 'removeAll' } : { kind: 'remove', ids: memberValues(operation.value) });
      } else {
        if (operation.op === 'replace') steps.push({ kind: 'removeAll' });
        steps.push({ kind: 'add', ids: memberValues(operation.value) });
      }
    } else if ((path === null && isObject(operation.value)) || path === 'displayName') {
      const value = path === null ? (operation.value as Record<string, unknown>).displayName : operation.value;
      if (path === null && isObject(operation.value) && operation.value.members !== undefined) {
        if (operation.op === 'replace') steps.push({ kind: 'removeAll' });
        steps.push({ kind: 'add', ids: memberValues(operation.value.members) });
      }
      if (value !== undefined) {
        if (typeof value !== 'string' || value.trim() === '') throw new ScimError('invalid_attribute_format', 'displayName must be a non-empty string');
        displayName = value;
      }
    } else {
      throw new ScimError('invalid_request_payload', `unsupported group path ${JSON.stringify(path)}`);
    }
  }
  return { displayName, steps };
}
