/** Schema URNs of each SCIM version, from the spec's extension table, with the vendor's word where the spec writes "service". */
import { VENDOR_WORD } from '../../core/vendor-word.ts';
import type { ScimVersion } from './errors.ts';

export type VersionUrns = { user: string; group: string; enterprise: string; profile: string; guest: string };

export const URNS: Readonly<Record<ScimVersion, VersionUrns>> = {
  v1: {
    user: 'urn:scim:schemas:core:1.0',
    group: 'urn:scim:schemas:core:1.0',
    enterprise: 'urn:scim:schemas:extension:enterprise:1.0',
    profile: `urn:scim:schemas:extension:${VENDOR_WORD}:profile:1.0`,
    guest: `urn:scim:schemas:extension:${VENDOR_WORD}:guest:1.0`,
  },
  v2: {
    user: 'urn:ietf:params:scim:schemas:core:2.0:User',
    group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
    enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
    profile: `urn:ietf:params:scim:schemas:extension:${VENDOR_WORD}:profile:2.0:User`,
    guest: `urn:ietf:params:scim:schemas:extension:${VENDOR_WORD}:guest:2.0:User`,
  },
};

export const LIST_RESPONSE_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_URN = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
