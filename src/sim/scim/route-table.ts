/** Which endpoint a method and path name in each version, and what the spec says when none does. */
import { ScimError, type ScimVersion } from './errors.ts';
import type { ScimEndpoint } from './faults.ts';
import type { RateScope } from './rate-limits.ts';

export type ConfigPage = 'ServiceProviderConfigs' | 'ServiceProviderConfig' | 'ResourceTypes' | 'Schemas' | 'Schemas/Users' | 'Schemas/Groups';

export type ScimRoute = { endpoint: 'config'; page: ConfigPage } | { endpoint: Exclude<ScimEndpoint, 'config'>; id: string | null };

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Pages per version: the spec's endpoint table (v1.1 has no ResourceTypes nor Schemas list). */
const CONFIG_PAGES: Readonly<Record<ScimVersion, readonly ConfigPage[]>> = {
  v1: ['ServiceProviderConfigs', 'Schemas/Users', 'Schemas/Groups'],
  v2: ['ServiceProviderConfig', 'ResourceTypes', 'Schemas', 'Schemas/Users', 'Schemas/Groups'],
};

/** `rest` is the path after /scim/v1 or /scim/v2, e.g. "/Users/U123" or "/Groups/". */
export function resolveRoute(version: ScimVersion, method: string, rest: string): ScimRoute {
  if (!METHODS.has(method)) throw new ScimError('method_not_allowed', `${method} is not supported; use GET, POST, PUT, PATCH or DELETE`);
  const path = rest.replace(/^\/+/, '');
  const configPage = CONFIG_PAGES[version].find((p) => p === path || `${p}/` === path);
  if (configPage) {
    if (method !== 'GET') throw new ScimError('method_not_allowed', `${configPage} answers GET only`);
    return { endpoint: 'config', page: configPage };
  }
  const [collection, id, ...extra] = path.split('/');
  if ((collection !== 'Users' && collection !== 'Groups') || extra.length > 0) {
    throw new ScimError('bad_endpoint', `no endpoint /scim/${version}/${path}`);
  }
  const kind = collection === 'Users' ? 'users' : 'groups';
  const resourceId = id === undefined || id === '' ? null : decodeURIComponent(id);
  if (resourceId === null) {
    if (method === 'GET') return { endpoint: `${kind}.list`, id: null };
    if (method === 'POST') return { endpoint: `${kind}.create`, id: null };
    throw new ScimError(kind === 'users' ? 'missing_user_id' : 'missing_group_id', `${method} needs /${collection}/<id>`);
  }
  switch (method) {
    case 'GET':
      return { endpoint: `${kind}.get`, id: resourceId };
    case 'PUT':
      return { endpoint: `${kind}.replace`, id: resourceId };
    case 'PATCH':
      return { endpoint: `${kind}.patch`, id: resourceId };
    case 'DELETE':
      return { endpoint: `${kind}.delete`, id: resourceId };
    default:
      throw new ScimError('method_not_allowed', `POST goes to /${collection}, not to one ${kind === 'users' ? 'user' : 'group'}`);
  }
}

/** The rate-limit rows a request counts against: its kind (reads or writes) and its endpoint's own row. */
export function rateScopes(endpoint: ScimEndpoint): RateScope[] {
  switch (endpoint) {
    case 'config':
    case 'users.list':
    case 'groups.list':
      return ['reads'];
    case 'users.get':
    case 'groups.get':
      return ['reads', endpoint];
    case 'users.create':
    case 'users.delete':
    case 'groups.create':
    case 'groups.delete':
      return ['writes', endpoint];
    case 'users.replace':
    case 'users.patch':
      return ['writes', 'users.update'];
    case 'groups.replace':
    case 'groups.patch':
      return ['writes', 'groups.update'];
  }
}
