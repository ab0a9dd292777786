/** The configuration endpoints of each version: ServiceProviderConfig(s), ResourceTypes and Schemas. */
import type { ScimVersion } from './errors.ts';
import { listView } from './views.ts';
import { URNS } from './urns.ts';

const AUTHENTICATION_SCHEMES = [
  {
    type: 'oauthbearertoken',
    name: 'OAuth Bearer Token',
    description: 'An OAuth token with the admin scope, installed by an administrator, sent as Authorization: Bearer <token>.',
    primary: true,
  },
];

export function serviceProviderConfig(version: ScimVersion, baseUrl: string): Record<string, unknown> {
  const common = {
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: false },
    authenticationSchemes: AUTHENTICATION_SCHEMES,
  };
  if (version === 'v1') {
    // The filter is a v1.1 feature only.
    return { schemas: [URNS.v1.user], ...common, filter: { supported: true, maxResults: 1000 }, xmlDataFormat: { supported: false } };
  }
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    ...common,
    filter: { supported: false, maxResults: 1000 },
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string): Record<string, unknown> {
  const urns = URNS.v2;
  const type = (id: 'User' | 'Group', endpoint: string, schema: string, extensions: string[]) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id,
    name: id,
    endpoint,
    schema,
    schemaExtensions: extensions.map((s) => ({ schema: s, required: false })),
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/scim/v2/ResourceTypes/${id}` },
  });
  const types = [type('User', '/Users', urns.user, [urns.enterprise, urns.guest, urns.profile]), type('Group', '/Groups', urns.group, [])];
  return listView('v2', types, types.length, 1);
}

type Attribute = { name: string; type: string; multiValued?: boolean; required?: boolean; mutability?: string; subAttributes?: Attribute[] };

const text = (name: string, extra: Partial<Attribute> = {}): Attribute => ({ name, type: 'string', ...extra });
const valued = (name: string, subs: string[]): Attribute => ({
  name,
  type: 'complex',
  multiValued: true,
  subAttributes: [...subs.map((s) => text(s)), { name: 'primary', type: 'boolean' }],
});

const USER_ATTRIBUTES: Attribute[] = [
  text('id', { mutability: 'readOnly' }),
  text('externalId'),
  text('userName', { required: true }),
  text('nickName'),
  { name: 'name', type: 'complex', subAttributes: [text('givenName'), text('familyName'), text('honorificPrefix')] },
  text('displayName'),
  text('profileUrl', { mutability: 'readOnly' }),
  text('title'),
  text('userType'),
  text('preferredLanguage'),
  text('locale'),
  text('timezone'),
  { name: 'active', type: 'boolean' },
  text('password', { mutability: 'writeOnly' }),
  { ...valued('emails', ['value', 'type']), required: true },
  valued('phoneNumbers', ['value', 'type']),
  valued('photos', ['value', 'type']),
  valued('addresses', ['streetAddress', 'locality', 'region', 'postalCode', 'country']),
  valued('roles', ['value']),
  { ...valued('groups', ['value', 'display']), mutability: 'readOnly' },
];

const GROUP_ATTRIBUTES: Attribute[] = [
  text('id', { mutability: 'readOnly' }),
  text('displayName', { required: true }),
  { ...valued('members', ['value', 'display']), required: true },
];

const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((n) => text(n)),
  { name: 'manager', type: 'complex', subAttributes: [text('managerId')] },
];

const GUEST_ATTRIBUTES: Attribute[] = [text('type', { required: true }), { name: 'expiration', type: 'dateTime' }];
const PROFILE_ATTRIBUTES: Attribute[] = [{ name: 'startDate', type: 'dateTime' }];

function schema(version: ScimVersion, id: string, name: string, attributes: Attribute[]): Record<string, unknown> {
  if (version === 'v1') return { id, name, schema: id, attributes };
  return { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id, name, attributes, meta: { resourceType: 'Schema' } };
}

/** GET /Schemas/Users: the user schema, "also returns the guest extension schema". */
export function userSchemas(version: ScimVersion): Record<string, unknown> {
  const urns = URNS[version];
  const schemas = [schema(version, urns.user, 'User', USER_ATTRIBUTES), schema(version, urns.guest, 'Guest', GUEST_ATTRIBUTES)];
  return listView(version, schemas, schemas.length, 1);
}

export function groupSchema(version: ScimVersion): Record<string, unknown> {
  return schema(version, URNS[version].group, 'Group', GROUP_ATTRIBUTES);
}

/** GET /Schemas (v2.0 only): every schema the service knows. */
export function allSchemas(): Record<string, unknown> {
  const urns = URNS.v2;
  const schemas = [
    schema('v2', urns.user, 'User', USER_ATTRIBUTES),
    schema('v2', urns.group, 'Group', GROUP_ATTRIBUTES),
    schema('v2', urns.enterprise, 'EnterpriseUser', ENTERPRISE_ATTRIBUTES),
    schema('v2', urns.guest, 'Guest', GUEST_ATTRIBUTES),
    schema('v2', urns.profile, 'Profile', PROFILE_ATTRIBUTES),
  ];
  return listView('v2', schemas, schemas.length, 1);
}
