/**
 * The scopes of statuswatch's MCP server: what an EMA access token may be granted, and
 * which tools each one opens. Pure data, shared by the token endpoint, /mcp and the manifest.
 */

/** The status now and lately: current_status, reliability, recent_changes. */
export const STATUS_READ = 'status:read';
/** The archive of incidents: search_incidents, get_incident. */
export const INCIDENTS_READ = 'incidents:read';

export const MCP_SCOPES = [STATUS_READ, INCIDENTS_READ] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export const TOOL_SCOPES = {
  current_status: STATUS_READ,
  search_incidents: INCIDENTS_READ,
  get_incident: INCIDENTS_READ,
  reliability: STATUS_READ,
  recent_changes: STATUS_READ,
} as const satisfies Record<string, McpScope>;

export type McpToolName = keyof typeof TOOL_SCOPES;

/** `a b c` (OAuth's space-separated form) as a set of the scopes we know; others are dropped. */
export function knownScopes(text: string | undefined): McpScope[] {
  const asked = new Set((text ?? '').split(' ').filter(Boolean));
  return MCP_SCOPES.filter((scope) => asked.has(scope));
}

/**
 * What an EMA access token is granted: the scopes the ID-JAG carries (the identity provider's
 * policy may have narrowed them), narrowed again to those the request asked for, if it asked.
 */
export function grantedScopes(assertionScope: string | undefined, requestedScope: string | undefined): McpScope[] {
  const granted = knownScopes(assertionScope);
  if (requestedScope === undefined || requestedScope.trim() === '') return granted;
  const requested = new Set(knownScopes(requestedScope));
  return granted.filter((scope) => requested.has(scope));
}
