/** How each version shows a user, a group and a list page. */
import type { ScimVersion } from './errors.ts';
import type { GroupRecord, UserRecord } from './records.ts';
import { LIST_RESPONSE_URN, URNS } from './urns.ts';

/** "ISO 8601 timestamp with offset", e.g. 2026-11-23T09:30:00+00:00. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export type ViewContext = { version: ScimVersion; baseUrl: string };

function location(ctx: ViewContext, kind: 'Users' | 'Groups', id: string): string {
  return `${ctx.baseUrl}/scim/${ctx.version}/${kind}/${id}`;
}

function meta(ctx: ViewContext, kind: 'Users' | 'Groups', id: string, createdMs: number): Record<string, string> {
  const base = { created: isoWithOffset(createdMs), location: location(ctx, kind, id) };
  return ctx.version === 'v2' ? { resourceType: kind === 'Users' ? 'User' : 'Group', ...base } : base;
}

function phoneNumbers(user: UserRecord): Array<Record<string, unknown>> {
  const phones: Array<Record<string, unknown>> = [];
  // The spec: the primaryPhone slot comes back with primary true, the mobilePhone slot with type mobile.
  if (user.primaryPhone !== null) phones.push({ value: user.primaryPhone, type: 'work', primary: true });
  if (user.mobilePhone !== null) phones.push({ value: user.mobilePhone, type: 'mobile', primary: false });
  return phones;
}

export function userView(user: UserRecord, groups: readonly GroupRecord[], ctx: ViewContext): Record<string, unknown> {
  const urns = URNS[ctx.version];
  const schemas = [urns.user, urns.enterprise];
  if (user.guest) schemas.push(urns.guest);
  if (user.startDate !== null) schemas.push(urns.profile);
  const view: Record<string, unknown> = {
    schemas,
    id: user.id,
    externalId: user.externalId,
    meta: meta(ctx, 'Users', user.id, user.createdMs),
    userName: user.userName,
    nickName: user.userName,
    name: { givenName: user.name.givenName, familyName: user.name.familyName, honorificPrefix: user.name.honorificPrefix },
    displayName: user.displayName,
    profileUrl: user.profileUrl,
    title: user.title,
    userType: user.userType,
    preferredLanguage: user.preferredLanguage,
    locale: user.locale,
    timezone: user.timezone,
    active: user.active,
    emails: [
      { value: user.primaryEmail, type: 'work', primary: true },
      ...(user.secondaryEmail !== null ? [{ value: user.secondaryEmail, type: 'home', primary: false }] : []),
    ],
    phoneNumbers: phoneNumbers(user),
    photos: user.photo !== null ? [{ value: user.photo, type: 'photo', primary: true }] : [],
    addresses: user.address ? [{ ...user.address, primary: true }] : [],
    roles: user.role !== null ? [{ value: user.role, primary: true }] : [],
    groups: groups.map((g) => ({ value: g.id, display: g.displayName })),
    [urns.enterprise]: {
      employeeNumber: user.enterprise.employeeNumber,
      costCenter: user.enterprise.costCenter,
      organization: user.enterprise.organization,
      division: user.enterprise.division,
      department: user.enterprise.department,
      manager: { managerId: user.enterprise.managerId },
    },
  };
  if (user.guest) view[urns.guest] = { type: 'multi', expiration: user.guest.expiration };
  if (user.startDate !== null) view[urns.profile] = { startDate: user.startDate };
  return view;
}

export function memberDisplay(user: UserRecord | undefined): string {
  return user ? user.displayName || user.userName : '';
}

export function groupView(group: GroupRecord, lookup: (id: string) => UserRecord | undefined, ctx: ViewContext): Record<string, unknown> {
  return {
    schemas: [URNS[ctx.version].group],
    id: group.id,
    meta: meta(ctx, 'Groups', group.id, group.createdMs),
    displayName: group.displayName,
    members: [...group.members].map((id) => ({ value: id, display: memberDisplay(lookup(id)) })),
  };
}

export function listView(version: ScimVersion, resources: unknown[], totalResults: number, startIndex: number): Record<string, unknown> {
  return {
    schemas: [version === 'v2' ? LIST_RESPONSE_URN : URNS.v1.user],
    totalResults,
    itemsPerPage: resources.length,
    startIndex,
    Resources: resources,
  };
}
