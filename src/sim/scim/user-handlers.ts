/** The /Users endpoints of both versions over the directory. */
import { ScimError } from './errors.ts';
import { matchesFilter, parseFilter } from './filter.ts';
import { parsePaging, selectPage } from './paging.ts';
import { patchUserV1 } from './patch-v1.ts';
import { patchUserV2 } from './patch-v2.ts';
import type { UserRecord } from './records.ts';
import type { ScimState } from './state.ts';
import { userFromCreate, userFromReplace } from './user-writes.ts';
import { listView, userView, type ViewContext } from './views.ts';

export type HandlerResult = { status: number; body: unknown };

/** Ids begin with U or W; anything else cannot be one of ours. */
const USER_ID = /^[UW][A-Z0-9]{1,20}$/;

function findUser(state: ScimState, id: string): UserRecord {
  if (!USER_ID.test(id)) throw new ScimError('cannot_decode_user_id', `${JSON.stringify(id)} is not a user id`);
  const user = state.directory.user(id);
  if (!user) throw new ScimError('no_such_user', `no user ${id}`);
  return user;
}

function show(state: ScimState, user: UserRecord, ctx: ViewContext): Record<string, unknown> {
  return userView(user, state.directory.groupsOf(user.id), ctx);
}

export function listUsers(state: ScimState, params: URLSearchParams, ctx: ViewContext, missingPage: boolean): HandlerResult {
  const paging = parsePaging(params);
  const filterText = params.get('filter');
  if (filterText !== null && ctx.version === 'v2') {
    // The spec: filter is v1.1 only. Refusing it beats answering an unfiltered list a client would trust.
    throw new ScimError('invalid_query', 'filter is not applicable to v2.0');
  }
  const filter = filterText === null ? null : parseFilter(filterText);
  const matching = filter
    ? state.directory.users().filter((u) =>
        matchesFilter(filter, {
          userName: u.userName,
          emails: u.secondaryEmail === null ? [u.primaryEmail] : [u.primaryEmail, u.secondaryEmail],
          restricted: u.guest !== null,
          ultraRestricted: u.singleChannelGuest,
        }),
      )
    : state.directory.users();
  const page = missingPage ? [] : selectPage(matching, paging, state.shortPages.users);
  return {
    status: 200,
    body: listView(
      ctx.version,
      page.map((u) => show(state, u, ctx)),
      matching.length,
      paging.startIndex,
    ),
  };
}

export function getUser(state: ScimState, id: string, ctx: ViewContext): HandlerResult {
  return { status: 200, body: show(state, findUser(state, id), ctx) };
}

export function createUser(state: ScimState, body: unknown, ctx: ViewContext): HandlerResult {
  const lookup = (ref: string) => state.directory.resolveUserRef(ref);
  const user = userFromCreate(ctx.version, state.directory.nextUserId(), state.now(), body, lookup);
  return { status: 201, body: show(state, state.directory.saveUser(user), ctx) };
}

export function replaceUser(state: ScimState, id: string, body: unknown, ctx: ViewContext): HandlerResult {
  const lookup = (ref: string) => state.directory.resolveUserRef(ref);
  const user = userFromReplace(ctx.version, findUser(state, id), body, lookup);
  return { status: 200, body: show(state, state.directory.saveUser(user), ctx) };
}

export function patchUser(state: ScimState, id: string, body: unknown, ctx: ViewContext): HandlerResult {
  const lookup = (ref: string) => state.directory.resolveUserRef(ref);
  const existing = findUser(state, id);
  const patched = ctx.version === 'v1' ? patchUserV1(existing, body, lookup) : patchUserV2(existing, body, lookup);
  if (patched.userName === '') throw new ScimError('username_empty', 'userName cannot be empty');
  return { status: 200, body: show(state, state.directory.saveUser(patched), ctx) };
}

/** DELETE deactivates: the user stays in the directory (and in lists) with active false, and leaves every group. */
export function deactivateUser(state: ScimState, id: string): HandlerResult {
  const user = { ...findUser(state, id), active: false };
  state.directory.saveUser(user);
  return { status: 204, body: null };
}
