/** The SCIM error codes of the spec's table with their meanings, and the error a SCIM call fails with. */

/** "Errors / SCIM error codes" of the spec, row by row: the sync log writes the meaning beside the code. */
const SCIM_ERROR_MEANINGS: Readonly<Record<string, string>> = {
  addresses_invalid: 'addresses attribute invalid',
  bad_email_address: 'email does not exist or badly formatted',
  bad_endpoint: 'endpoint URL does not exist',
  cannot_make_user_guest: 'admins, owners and primary owners cannot be made guests',
  cannot_decode_user_id: 'user ID cannot be decoded',
  cannot_modify_owner: 'workspace ownership cannot be modified via SCIM',
  cannot_modify_gdpr: 'user whose personal information was forgotten cannot be modified',
  cannot_disable_bot_user_with_scim: 'bot users cannot be deactivated via SCIM',
  cannot_disable_primary_owner: 'primary owner of a workspace cannot be deactivated',
  email_empty: 'primary email missing from the request',
  email_invalid: 'email values invalid',
  email_taken: 'email already exists',
  emails_invalid: 'emails attribute invalid',
  failed_to_remove_users_for_linked_subteam: 'error removing users from an identity-provider group',
  group_members_create_failed: 'error updating a user group',
  group_member_max_exceeded: '15k is the recommended limit for identity-provider groups; maximum is 4k for user groups',
  group_creation_failed: 'creating a user group failed',
  groups_invalid: 'groups attribute invalid',
  idp_group_linked_to_channels: 'group is linked to channels; remove each link before deleting',
  improper_enterprise_schema_format: 'enterprise manager sub-attribute lacks managerId',
  incomplete_filter: 'malformed filter; parts must be separated by a single space',
  invalid_attribute_format: 'singular or multi-valued attribute has the wrong type',
  invalid_authentication:
    'problem with the OAuth token: wrong scope, not installed by an administrator, malformed, or not sent as Bearer in the Authorization header',
  invalid_display_name: 'display name not allowed (send display name only on creation, or disable the setting that lets users change it)',
  invalid_emoji_not_allowed: 'attribute value contains an emoji',
  invalid_filter_group: 'filter contains a malformed group',
  invalid_name_maxlength: 'display name too long',
  invalid_name_specials: 'display name has invalid special characters such as @',
  invalid_name_required: 'givenName and familyName are both only spaces',
  invalid_query: 'problem with filter entities or operators',
  invalid_request_payload: 'payload has unsupported attributes or properties',
  invalid_reserved_word: 'a reserved word used in an attribute',
  invalid_starts_with_at: 'displayName starts with @',
  invalid_sort_order: 'sortOrder is neither ascending nor descending',
  long_nickname: 'nickName longer than 21 characters',
  method_not_allowed: 'only GET, POST, PUT, PATCH and DELETE are supported',
  missing_authentication: 'authentication token missing',
  missing_primary_email: 'removing the primary email without a replacement',
  missing_schema_element: 'schemas attribute missing',
  missing_group_id: 'group ID not specified',
  missing_user_id: 'user ID not specified',
  no_filters: 'filter parameter given but no filters specified',
  no_such_group: 'group does not exist',
  no_such_group_members: 'group members do not exist',
  no_such_user: 'user does not exist',
  non_org_teams_only: 'in an enterprise organization the app must be installed on the organization',
  query_building_failed: 'filter did not translate to a valid query',
  database_query_failure: 'error executing a filter',
  password_change_not_allowed: 'updates to password via SCIM prohibited',
  permission_denied: 'token lacks permission for the action',
  phoneNumbers_invalid: 'phoneNumbers attribute invalid',
  photos_invalid: 'photos attribute invalid',
  plus_teams_only: 'SCIM only on Business+ and Enterprise plans',
  primary_owner_check_failure: 'primary owner of a workspace in an organization cannot be deactivated',
  resource_locked: 'too many group update requests in a short period',
  roles_invalid: 'roles attribute invalid',
  too_many_requests: 'too many requests in a short period',
  too_many_users: 'group update contains more than 15,000 users',
  truncation_error: 'userName could not be truncated to avoid a conflict',
  unable_to_add_deleted_or_guest_to_group: 'deleted or guest users cannot be added to the group',
  unable_to_create_team_profile_fields: 'error creating custom profile fields',
  unknown_user: 'user does not exist',
  unsupported_version: 'SCIM version not supported',
  user_creation_failed: 'user already exists or creation error',
  username_empty: 'userName empty on PUT or POST',
  username_invalid: 'userName invalid',
  username_not_allowed: 'userName is reserved',
  username_required: 'method requires a username parameter',
  username_taken: 'usernames must be unique and distinct from channel names',
  username_too_long: 'username longer than 21 characters',
};

/**
 * Failures that are ours, not the vendor's table: no answer in time, no connection, an answer that
 * does not parse, a list page that went missing, a status with no code in its body.
 */
const CLIENT_FAILURE_MEANINGS: Readonly<Record<string, string>> = {
  timeout: 'the directory did not answer in time',
  network: 'the directory could not be reached',
  malformed: 'the answer did not have the shape the spec gives',
  too_large: 'the answer was larger than the client reads',
  missing_page: 'a list page came back empty while totalResults said more remained',
  not_configured: 'SCIM_TOKEN is not set',
  too_many_pages: 'the list did not end within the pages the client reads',
  deadline: 'the sync did not end within its deadline',
  stopped: 'the sync was stopped before it ended (the service is stopping)',
  over_budget: 'the sync read more than the bytes one sync may read in all',
  invalid_record: 'one record is not the shape the spec gives, or is past a bound the client keeps',
};

/** Whether `code` is a row of the spec's table. */
export function isScimErrorCode(code: string): boolean {
  return Object.hasOwn(SCIM_ERROR_MEANINGS, code);
}

/** The meaning of a code: the spec's, ours, or "HTTP <status>" for a bare status. */
function scimErrorMeaning(code: string): string {
  return (
    SCIM_ERROR_MEANINGS[code] ??
    CLIENT_FAILURE_MEANINGS[code] ??
    (/^http_\d{3}$/.test(code) ? `the directory answered HTTP ${code.slice(5)}` : "not in the spec's table")
  );
}

/** A SCIM call that failed: the code (the spec's or ours), its meaning, and whether trying later may help. */
export class ScimCallError extends Error {
  override readonly name = 'ScimCallError';
  readonly meaning: string;
  /** What more the failure said, beside the code and its meaning; null when nothing. */
  readonly detail: string | null;
  constructor(
    /** "GET /scim/v2/Groups/G1", without the host or the token. */
    readonly request: string,
    readonly code: string,
    readonly status: number | null,
    /** A timeout, a lost connection, a 429 or a 5xx: the same call may work later. */
    readonly retryable: boolean,
    options?: { cause?: unknown; detail?: string },
  ) {
    const meaning = scimErrorMeaning(code);
    super(`${request}: ${code} (${meaning})${options?.detail ? `: ${options.detail}` : ''}`, options);
    this.meaning = meaning;
    this.detail = options?.detail ?? null;
  }
}
