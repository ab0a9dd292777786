/** The /Groups endpoints of both versions over the directory. */
import { ScimError } from './errors.ts';
import { parsePaging, selectPage } from './paging.ts';
import { groupPatchV1 } from './patch-v1.ts';
import { groupPatchV2 } from './patch-v2.ts';
import type { GroupRecord } from './records.ts';
import type { ScimState } from './state.ts';
import { isObject } from './user-attributes.ts';
import type { HandlerResult } from './user-handlers.ts';
import { requireSchemas } from './user-writes.ts';
import { groupView, listView, type ViewContext } from './views.ts';

function findGroup(state: ScimState, id: string): GroupRecord {
  const group = state.directory.group(id);
  if (!group) throw new ScimError('no_such_group', `Resource ${id} not found`);
  return group;
}

function show(state: ScimState, group: GroupRecord, ctx: ViewContext): Record<string, unknown> {
  return groupView(group, (id) => state.directory.user(id), ctx);
}

/** displayName and members of a POST or PUT body; members left out means none. */
function groupBody(raw: unknown): { displayName: string; members: string[] } {
  const { body } = requireSchemas(raw);
  for (const key of Object.keys(body)) {
    if (!['schemas', 'id', 'meta', 'displayName', 'members', 'externalId'].includes(key)) {
      throw new ScimError('invalid_request_payload', `unsupported group attribute ${JSON.stringify(key)}`);
    }
  }
  if (typeof body.displayName !== 'string' || body.displayName.trim() === '') {
    throw new ScimError('invalid_request_payload', 'displayName is required');
  }
  const members = body.members ?? [];
  if (!Array.isArray(members)) throw new ScimError('invalid_attribute_format', 'members must be an array');
  const ids = members.map((m) => {
    if (!isObject(m) || typeof m.value !== 'string') throw new ScimError('invalid_attribute_format', 'each member needs a string value');
    return m.value;
  });
  return { displayName: body.displayName, members: ids };
}

export function listGroups(state: ScimState, params: URLSearchParams, ctx: ViewContext, missingPage: boolean): HandlerResult {
  const paging = parsePaging(params);
  if (params.get('filter') !== null) {
    throw new ScimError('invalid_query', 'groups have no filterable attributes (username, email, restricted, ultra_restricted are user attributes)');
  }
  const groups = state.directory.groups();
  const page = missingPage ? [] : selectPage(groups, paging, state.shortPages.groups);
  return {
    status: 200,
    body: listView(
      ctx.version,
      page.map((g) => show(state, g, ctx)),
      groups.length,
      paging.startIndex,
    ),
  };
}

export function getGroup(state: ScimState, id: string, ctx: ViewContext): HandlerResult {
  return { status: 200, body: show(state, findGroup(state, id), ctx) };
}

export function createGroup(state: ScimState, raw: unknown, ctx: ViewContext): HandlerResult {
  const { displayName, members } = groupBody(raw);
  return { status: 201, body: show(state, state.directory.createGroup(displayName, members, state.now()), ctx) };
}

/** PUT replaces the name and every member (members left out: none). */
export function replaceGroup(state: ScimState, id: string, raw: unknown, ctx: ViewContext): HandlerResult {
  findGroup(state, id);
  const { displayName, members } = groupBody(raw);
  state.directory.checkGroupName(displayName, id);
  state.directory.changeMembers(id, [{ kind: 'removeAll' }, { kind: 'add', ids: members }]);
  return { status: 200, body: show(state, state.directory.renameGroup(id, displayName), ctx) };
}

export function patchGroup(state: ScimState, id: string, raw: unknown, ctx: ViewContext): HandlerResult {
  findGroup(state, id);
  const patch = ctx.version === 'v1' ? groupPatchV1(raw) : groupPatchV2(raw);
  if (patch.displayName !== null) state.directory.checkGroupName(patch.displayName, id);
  state.directory.changeMembers(id, patch.steps);
  const group = patch.displayName !== null ? state.directory.renameGroup(id, patch.displayName) : findGroup(state, id);
  return { status: 200, body: show(state, group, ctx) };
}

/** Removes the group for good; its members stay in the directory. */
export function deleteGroup(state: ScimState, id: string): HandlerResult {
  const group = findGroup(state, id);
  if (group.linkedChannels > 0) throw new ScimError('idp_group_linked_to_channels', `${id} is linked to ${group.linkedChannels} channel(s)`, 409);
  state.directory.deleteGroup(id);
  return { status: 204, body: null };
}
