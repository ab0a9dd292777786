/** Zod schemas for the SCIM sim's control API bodies. */
import { z } from 'zod';
import { SCIM_ENDPOINTS, SCIM_FAULT_KINDS } from './faults.ts';
import { WORKSPACE_REFUSALS } from './state.ts';

const count = z.number().int().nonnegative();

export const seedSchema = z.strictObject({
  /** userNN00001..: each with an e-mail at example.com. */
  users: count,
  /** Of the seeded users, this many (the last ones) are multi-channel guests. */
  multiChannelGuests: count.optional(),
  /** And this many (before those) single-channel guests. */
  singleChannelGuests: count.optional(),
  /** Groups whose members are the first `members` seeded full members. */
  groups: z
    .array(z.strictObject({ displayName: z.string().min(1), members: count }))
    .max(1000)
    .optional(),
});

export const controlUserSchema = z.strictObject({
  userName: z.string().min(1),
  email: z.string().min(3),
  displayName: z.string().optional(),
  guest: z.enum(['multi', 'single']).optional(),
});

export const controlGroupSchema = z.strictObject({
  displayName: z.string().min(1),
  members: z.array(z.string()).max(15_000).optional(),
});

export const memberChangeSchema = z.strictObject({
  add: z.array(z.string()).max(15_000).optional(),
  remove: z.array(z.string()).max(15_000).optional(),
});

export const clockSchema = z.strictObject({ nowMs: z.number().int().nonnegative() });
export const advanceSchema = z.strictObject({ ms: z.number().int().nonnegative() });
export const rateLimitSwitchSchema = z.strictObject({ enabled: z.boolean() });

export const shortPagesSchema = z.strictObject({
  users: z.number().int().positive().nullable().optional(),
  groups: z.number().int().positive().nullable().optional(),
});

export const scimFaultSchema = z.strictObject({
  target: z.enum([...SCIM_ENDPOINTS, '*']),
  kind: z.enum(SCIM_FAULT_KINDS),
  times: z.number().int().positive().optional(),
  status: z.number().int().min(400).max(599).optional(),
  retryAfterSeconds: z.number().int().nonnegative().max(3600).optional(),
  startIndex: z.number().int().positive().optional(),
  body: z.string().max(100_000).optional(),
  delayMs: z.number().int().nonnegative().max(600_000).optional(),
  totalResults: z.number().int().nonnegative().optional(),
});

export const linkedChannelsSchema = z.strictObject({ linkedChannels: z.number().int().nonnegative().max(10_000) });
export const workspaceSchema = z.strictObject({ refuse: z.enum(WORKSPACE_REFUSALS).nullable() });

export const versionsSchema = z.strictObject({ v1: z.boolean().optional(), v2: z.boolean().optional() });

export const rfcModesSchema = z.strictObject({ trailingSlash404: z.boolean().optional(), plainErrors: z.boolean().optional() });
