/** Parsing of query parameters shared by the list endpoints: limits, cursors, lists and dates. */
import type { Context } from 'hono';
import type { IncidentFilter } from '../core/ports.ts';
import { ApiError } from '../core/errors.ts';
import { parseInstant } from '../core/instant.ts';
import { isSourceId } from '../core/statuspage/mapping.ts';
import { DEFAULT_LIMIT, limitParamSchema, MAX_LIMIT } from './openapi/api-schemas.ts';

export { DEFAULT_LIMIT, MAX_LIMIT };

/** The spec: invalid limits are adjusted silently, never refused (the schema /openapi.json describes). */
export function pageLimit(raw: string | undefined): number {
  return limitParamSchema.parse(raw);
}

/** An API list request's `cursor` and `limit` (adjusted as pageLimit does). */
export function pageRequest(c: Context): { cursor: string | undefined; limit: number } {
  return { cursor: c.req.query('cursor'), limit: pageLimit(c.req.query('limit')) };
}

/** An epoch ms from the query (the poll runs' `before`): anything but a positive number is none, never refused. */
export function epochMsParam(raw: string | undefined): number | null {
  const ms = Number(raw);
  return raw !== undefined && Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** `?service=Files&service=Login/SSO` and `?service=Files,Login/SSO` alike. */
export function listParam(c: Context, name: string, normalise: (v: string) => string = (v) => v): string[] | undefined {
  const values = (c.req.queries(name) ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => normalise(v.trim()))
    .filter(Boolean);
  return values.length > 0 ? [...new Set(values)] : undefined;
}

/** A date (2026-07-01, taken as UTC midnight) or a full ISO 8601 time with offset; errors name it `label`. */
export function instantParam(c: Context, name: string, label: string = name): number | undefined {
  return parseInstant(c.req.query(name), label);
}

/**
 * The incident list's filters from the query, shared by `GET /api/incidents` and the `/incidents`
 * page: services exact, types and statuses lower-cased, since/until as instants. The search (q)
 * is left to each caller, which words its own error for a query with no words. `labels` names the
 * date fields in errors as the caller's form does (the page's "From" is the API's `since`).
 */
export function incidentFilterParams(c: Context, labels: { since: string; until: string } = { since: 'since', until: 'until' }): IncidentFilter {
  return {
    services: listParam(c, 'service'),
    types: listParam(c, 'type', (v) => v.toLowerCase()),
    statuses: listParam(c, 'status', (v) => v.toLowerCase()),
    sinceMs: instantParam(c, 'since', labels.since),
    untilMs: instantParam(c, 'until', labels.until),
    source: sourceParam(c),
  };
}

/** `source`: a source's id (`src_` and letters and digits) or "main" for the main feed; absent, every source. */
export function sourceParam(c: Context): string | undefined {
  return sourceId(c.req.query('source'));
}

/** A source id as a face was given it (a query parameter, an MCP tool's argument): checked, or ApiError 400. */
export function sourceId(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!isSourceId(value)) {
    throw new ApiError(400, 'invalid_request', 'source: a source id (src_...) as GET /api/sources lists them, or "main" for the main feed');
  }
  return value;
}
