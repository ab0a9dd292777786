/**
 * The query parameters each cached read takes, and the cache key made of them alone. Clients
 * choose URLs: a parameter no route reads (`&bust=N`) would otherwise make every request a new
 * cache entry, built anew. So each face either refuses such parameters or leaves them out of the
 * key, and the key lists the parameters in one order, empty ones dropped (every route takes an
 * empty value as an absent one), so `?limit=5&service=Files` and `?service=Files&limit=5&q=` share
 * one entry.
 *
 * - statuswatch's own JSON API refuses them (400 `invalid_request` naming them): a misspelt
 *   filter (`?services=Files`) silently ignored would answer every incident.
 * - The vendor mirror, the feeds, the widget and the public pages ignore them: the mirror's clients
 *   are the vendor's, and browsers and feed readers add parameters of their own.
 */
import type { Context } from 'hono';
import { ApiError } from '../core/errors.ts';
import { API_OPERATIONS } from './openapi/openapi-document.ts';

/** `params`: the names a read takes (`sortedParams`: in the key's order); `unknown`: what other names get. */
export type ReadParams = { params: readonly string[]; sortedParams: readonly string[]; unknown: 'refuse' | 'ignore' };

const readParams = (params: readonly string[], unknown: ReadParams['unknown']): ReadParams => ({ params, sortedParams: [...params].sort(), unknown });

type PathRule = { pattern: RegExp; read: ReadParams };

const pathPattern = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}$`);

const PUBLIC_API_READS = API_OPERATIONS.filter((op) => op.method === 'get' && !op.admin && op.path.startsWith('/api/'));
const PUBLIC_API_READ_PATHS = PUBLIC_API_READS.map((op) => op.path);

/** The public GET operations of the document: the one list of what each takes. */
const API_READS: PathRule[] = PUBLIC_API_READS.map((op) => ({
  pattern: pathPattern(op.path),
  read: readParams(
    (op.query ?? []).map((q) => q.name),
    op.unknownQuery ?? 'refuse',
  ),
}));

const apiOperation = (path: string) => API_OPERATIONS.find((op) => op.method === 'get' && op.path === path);

/** The `/incidents` page takes the filters of `GET /api/incidents`. */
const INCIDENT_LIST_PARAMS = (apiOperation('/api/incidents')?.query ?? []).map((q) => q.name);

const ignoring = (params: readonly string[]): ReadParams => readParams(params, 'ignore');

/** The other cached faces: the public pages, the feeds, the widget. */
const OTHER_READS: PathRule[] = [
  { pattern: pathPattern('/'), read: ignoring([]) },
  { pattern: pathPattern('/incidents'), read: ignoring(INCIDENT_LIST_PARAMS) },
  { pattern: pathPattern('/incidents/:id'), read: ignoring([]) },
  { pattern: pathPattern('/sources/:id'), read: ignoring([]) },
  { pattern: pathPattern('/reliability'), read: ignoring(['source']) },
  { pattern: /^\/feed\.[a-z]+$/, read: ignoring(['service', 'source']) },
  { pattern: pathPattern('/widget.json'), read: ignoring(['service', 'source']) },
  { pattern: pathPattern('/badge.svg'), read: ignoring(['service', 'source']) },
  { pattern: pathPattern('/embed'), read: ignoring(['service', 'source', 'theme']) },
];

/** The paths without a `:param`, looked up at once: the hot paths (`/widget.json`, `/badge.svg`) are among them. */
const EXACT_READS = new Map<string, ReadParams>();
for (const path of [...PUBLIC_API_READ_PATHS, '/', '/incidents', '/reliability', '/widget.json', '/badge.svg', '/embed']) {
  const rule = API_READS.find((r) => r.pattern.test(path)) ?? OTHER_READS.find((r) => r.pattern.test(path));
  if (rule && !path.includes(':')) EXACT_READS.set(path, rule.read);
}

/** What the read at `path` takes; undefined for a path not listed (its key is then the whole URL). */
function readParamsOf(path: string): ReadParams | undefined {
  return EXACT_READS.get(path) ?? (API_READS.find((rule) => rule.pattern.test(path)) ?? OTHER_READS.find((rule) => rule.pattern.test(path)))?.read;
}

/**
 * The response cache's key for a request: origin and path (answers carry links built from the
 * origin), then the parameters the read takes, sorted by name, each name's values in their order.
 */
export function readCacheKey(c: Context): string {
  const url = c.req.url;
  const queryAt = url.indexOf('?');
  // No query: the URL is its own key (the hot paths' usual request).
  if (queryAt < 0) return url;
  const read = readParamsOf(c.req.path);
  if (!read) return url;
  const given = new URLSearchParams(url.slice(queryAt + 1));
  const kept = new URLSearchParams();
  for (const name of read.sortedParams) {
    for (const value of given.getAll(name)) if (value.trim() !== '') kept.append(name, value);
  }
  const query = kept.toString();
  return `${url.slice(0, queryAt)}${query ? `?${query}` : ''}`;
}

/** Throws ApiError 400 for a GET of the JSON API with a parameter its operation does not take. */
export function refuseUnknownParams(c: Context): void {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return;
  // No query has no unknown parameter: the usual request is answered without a look at the rules.
  const queryAt = c.req.url.indexOf('?');
  if (queryAt < 0) return;
  const read = readParamsOf(c.req.path);
  if (read?.unknown === 'refuse') {
    const unknown = [...new Set(new URLSearchParams(c.req.url.slice(queryAt + 1)).keys())].filter((name) => !read.params.includes(name));
    if (unknown.length > 0) {
      const names = unknown
        .slice(0, 5)
        .map((name) => JSON.stringify(name.slice(0, 40)))
        .join(', ');
      const takes = read.params.length > 0 ? `it takes ${read.params.join(', ')}` : 'it takes none';
      throw new ApiError(
        400,
        'invalid_request',
        `unknown query parameter${unknown.length > 1 ? 's' : ''} ${names} for GET ${c.req.path.slice(0, 100)}: ${takes}`,
      );
    }
  }
}
