/** The OpenAPI operations of group subscriptions: members as last synced, the audit list, and sync now. */
import { z } from 'zod';
import { createGroupSubscriptionSchema } from '../../core/scim-group.ts';
import type { ApiOperation } from './openapi-document.ts';

const isoOrNull = z.string().nullable();

const syncStateSchema = z.looseObject({
  synced_at: isoOrNull,
  outcome: z.enum(['never', 'ok', 'failed']),
  error: z.string().nullable(),
  last_ok_at: isoOrNull,
  version: z.enum(['v2', 'v1']).nullable(),
  group_deleted: z.boolean(),
});

const memberSchema = z.looseObject({
  user_id: z.string(),
  email: z.string().nullable(),
  display_name: z.string(),
  active: z.boolean(),
  timezone: z.string().nullable(),
  muted: z.boolean(),
  receives: z.boolean(),
});

const changeSchema = z.looseObject({
  user_id: z.string().nullable(),
  email: z.string().nullable(),
  display_name: z.string().nullable(),
  change: z.string(),
});

const ok = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ ok: z.literal(true), ...shape });
const pageMetadata = z.object({ next_cursor: z.string() });

export const groupMembersSchema = ok({
  group: z.looseObject({ id: z.string(), display_name: z.string() }),
  sync: syncStateSchema,
  total: z.number().int(),
  members: z.array(memberSchema),
  response_metadata: pageMetadata,
});
export const groupAuditSchema = ok({
  audit: z.array(changeSchema.extend({ id: z.number().int(), at: z.string(), detail: z.string().nullable() })),
  response_metadata: pageMetadata,
});
export const groupSyncSchema = ok({
  outcome: z.enum(['ok', 'superseded']),
  group_deleted: z.boolean(),
  members: z.number().int(),
  changes: z.array(changeSchema),
  requests: z.number().int(),
  synced_at: z.string(),
});

/** `POST /api/subscriptions` also takes a group: documented as the alternative body. */
export const groupSubscriptionBody = createGroupSubscriptionSchema;

export function groupOperations(page: () => ApiOperation['query']): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/api/subscriptions/:id/members',
      summary: 'A group subscription’s members as last synced from the SCIM directory, with the sync’s time and outcome',
      admin: true,
      query: page(),
      ok: { status: 200, schema: groupMembersSchema },
    },
    {
      method: 'get',
      path: '/api/subscriptions/:id/audit',
      summary: 'A group subscription’s audit list, newest first: added, removed (left group, deactivated, group deleted), failed syncs, skipped records',
      admin: true,
      query: page(),
      ok: { status: 200, schema: groupAuditSchema },
    },
    {
      method: 'post',
      path: '/api/subscriptions/:id/sync',
      summary: 'Sync a group subscription from the SCIM directory now, and say what changed (502 when the directory fails; the last list is kept)',
      admin: true,
      ok: { status: 200, schema: groupSyncSchema },
    },
  ];
}
