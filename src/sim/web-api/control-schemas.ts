/** Zod schemas of the Web API simulator's control requests. */
import { z } from 'zod';
import { WEB_API_FAULT_KINDS } from './faults.ts';
import { METHOD_NAMES } from './methods.ts';

const name = z.string().trim().min(1).max(80);
const scopes = z.array(z.string().regex(/^[a-z.:_-]{1,64}$/, 'a scope such as chat:write')).max(100);
const channelName = z.string().regex(/^#?[a-z0-9_-]{1,80}$/, 'lower-case letters, digits, - and _ (at most 80)');
const method = z.string().refine((m) => m === '*' || METHOD_NAMES.includes(m), `a method the sim speaks (${METHOD_NAMES.join(', ')}) or *`);

export const channelSchema = z.object({
  name: channelName,
  isPrivate: z.boolean().optional(),
  isArchived: z.boolean().optional(),
  botIsMember: z.boolean().optional(),
});

/** A change to a channel a test makes: archive it, or take the bot out of it. */
export const channelPatchSchema = z.strictObject({ isArchived: z.boolean().optional(), botIsMember: z.boolean().optional() });

export const workspaceSchema = z.object({
  name,
  teamId: z
    .string()
    .regex(/^T[A-Z0-9]{2,20}$/, 'T and upper-case letters or digits')
    .optional(),
  enterprise: z
    .object({ id: z.string().regex(/^E[A-Z0-9]{2,20}$/), name })
    .nullable()
    .optional(),
  botName: z
    .string()
    .regex(/^[a-z0-9._-]{1,80}$/)
    .optional(),
  scopes: scopes.optional(),
  /** Default true: the app is installed and a long-lived bot token is returned. */
  installed: z.boolean().optional(),
  channels: z.array(channelSchema).max(50).optional(),
});

export const appSchema = z.object({
  clientId: z.string().min(1).max(100).optional(),
  clientSecret: z.string().min(1).max(100).optional(),
  tokenRotationEnabled: z.boolean().optional(),
});

export const settingsSchema = z.object({
  accessTokenLifetimeSeconds: z
    .number()
    .int()
    .min(1)
    .max(43_200 * 10)
    .optional(),
  refreshGraceMs: z.number().int().min(0).max(3_600_000).optional(),
  cursorLifetimeMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400_000)
    .optional(),
  maxPageItems: z.number().int().min(1).max(1000).nullable().optional(),
  endCursor: z.enum(['empty', 'null', 'absent']).optional(),
});

export const tokenRequestSchema = z.object({
  type: z.enum(['bot', 'user']).default('bot'),
  userId: z
    .string()
    .regex(/^[UW][A-Z0-9]{2,20}$/)
    .optional(),
});

export const codeRequestSchema = z.object({ redirectUri: z.url().max(2000).optional(), scopes: scopes.optional() });

/** Seeded messages per request; a channel keeps MESSAGES_PER_CHANNEL_MAX anyway. */
export const SEEDED_MESSAGES_MAX = 2000;

export const messagesSchema = z.object({
  messages: z
    .array(
      z.object({
        text: z.string().max(40_000),
        userId: z
          .string()
          .regex(/^[UW][A-Z0-9]{2,20}$/)
          .optional(),
        threadTs: z
          .string()
          .regex(/^\d{1,12}\.\d{6}$/)
          .optional(),
      }),
    )
    .min(1)
    .max(SEEDED_MESSAGES_MAX),
});

export const faultSchema = z.object({
  method,
  kind: z.enum(WEB_API_FAULT_KINDS),
  error: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
  status: z.number().int().min(200).max(599).optional(),
  // Up to 30 days: a client must cap what a vendor asks, and a test must be able to ask too much.
  retryAfterSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .optional(),
  // A body fault's answer; the Web API's own answers are under 1 MB.
  body: z.string().max(1_000_000).optional(),
  after: z.boolean().optional(),
  times: z.number().int().positive().optional(),
});

export const rateLimitSchema = z.object({ method, limit: z.number().int().min(1).max(100_000), windowMs: z.number().int().min(1).max(3_600_000) });

export const clockSchema = z.object({ nowMs: z.number().int().nonnegative() });
