/**
 * The vendor's name where it appears in identifiers: type references (`slack#/types/user_id`),
 * `function_runtime: slack`, `SLACK_PROVIDED`, the SCIM extension URNs
 * (`urn:ietf:params:scim:schemas:extension:slack:guest:2.0:User`). The spec writes `service` in
 * its place, as it says at its top; the vendor's own apps and directory use its name.
 */
export const VENDOR_WORD = 'slack';
