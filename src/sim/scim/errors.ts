/** The SCIM service's errors: a code from the spec's table, its HTTP status, and the body each version sends. */

export type ScimVersion = 'v1' | 'v2';

/** The spec names the codes, not their statuses (beyond 400 and 429): these follow RFC 7644 §3.12. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  missing_authentication: 401,
  invalid_authentication: 401,
  permission_denied: 403,
  plus_teams_only: 403,
  non_org_teams_only: 403,
  bad_endpoint: 404,
  unsupported_version: 404,
  no_such_user: 404,
  unknown_user: 404,
  no_such_group: 404,
  method_not_allowed: 405,
  username_taken: 409,
  email_taken: 409,
  too_many_requests: 429,
  resource_locked: 429,
  database_query_failure: 500,
};

export function statusOf(code: string): number {
  return STATUS_BY_CODE[code] ?? 400;
}

/** A refusal the routes turn into the version's error body; `detail` is for people, never sent in v2. */
export class ScimError extends Error {
  readonly status: number;
  constructor(
    readonly code: string,
    readonly detail = code,
    status?: number,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ScimError';
    this.status = status ?? statusOf(code);
  }
}

export const V2_ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * v2.0 is the spec's table: detail carries the error code. v1.1's body is "not shown" in the spec;
 * this is the shape the vendor's v1.1 service is known to send (`Errors` with description and code).
 */
export function errorBody(version: ScimVersion, code: string, status: number): Record<string, unknown> {
  if (version === 'v2') return { schemas: [V2_ERROR_URN], detail: code, status };
  return { Errors: { description: code, code: status } };
}

/** RFC 7644 §3.12 as its reference server answers: `status` a string, `detail` free text for people. */
export function plainErrorResponse(status: number, detail: string): Response {
  return new Response(JSON.stringify({ schemas: [V2_ERROR_URN], status: String(status), detail }), {
    status,
    headers: { 'Content-Type': 'application/scim+json' },
  });
}

export function errorResponse(version: ScimVersion, code: string, status = statusOf(code), headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(errorBody(version, code, status)), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}
