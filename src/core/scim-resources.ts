/** Zod schemas for the SCIM answers a reading client gets (user, group, list, error body), and their conversions. */
import { z } from 'zod';

export type ScimVersionName = 'v2' | 'v1';

/** A directory user as group subscriptions need it. */
export type DirectoryUser = {
  id: string;
  /** The primary email; null when the user has none (such a member receives nothing). */
  email: string | null;
  active: boolean;
  /** The user's own IANA zone from the directory, when set: it wins over the subscription's. */
  timeZone: string | null;
  displayName: string;
};

export type DirectoryGroup = { id: string; displayName: string; memberIds: string[] };

// The spec's largest group is 15,000 members; a page is at most 1,000 resources. Bounds a little
// above both keep a runaway answer from being held in memory.
const MAX_GROUP_MEMBERS = 20_000;
const MAX_PAGE_RESOURCES = 1_000;
const text = (max: number) => z.string().max(max);

const emailSchema = z.object({ value: text(320), type: text(50).nullish(), primary: z.boolean().nullish() });

export const scimUserSchema = z.object({
  id: text(100).min(1),
  userName: text(200).nullish(),
  displayName: text(400).nullish(),
  // The spec: "true or false"; a user without it is not known to be active, so it receives nothing.
  active: z.boolean().nullish(),
  timezone: text(100).nullish(),
  emails: z.array(emailSchema).max(10).nullish(),
});

export const scimGroupSchema = z.object({
  id: text(100).min(1),
  displayName: text(400),
  members: z
    .array(z.object({ value: text(100).min(1), display: text(400).nullish() }))
    .max(MAX_GROUP_MEMBERS)
    .nullish(),
});

/** The list envelope of both versions: v1.1 sends the same fields under another schemas URN. */
export function scimListSchema<T extends z.ZodType>(resource: T) {
  return z.object({
    totalResults: z.number().int().nonnegative(),
    startIndex: z.number().int().positive().nullish(),
    itemsPerPage: z.number().int().nonnegative().nullish(),
    // An empty page may leave Resources out.
    Resources: z.array(resource).max(MAX_PAGE_RESOURCES).nullish(),
  });
}

/** v2.0: `detail` is the code. v1.1's body is "not shown" in the spec; the vendor sends `Errors` with a description. */
const v2ErrorSchema = z.object({ detail: text(200), status: z.union([z.number(), z.string()]).nullish() });
const v1ErrorEntry = z.object({ description: text(500), code: z.union([z.number(), z.string()]).nullish() });
const v1ErrorSchema = z.object({ Errors: z.union([v1ErrorEntry, z.array(v1ErrorEntry).min(1).max(20)]) });

/** The error code an error body carries, or null when it carries none we can read. */
export function scimErrorCode(body: unknown): string | null {
  const v2 = v2ErrorSchema.safeParse(body);
  if (v2.success) return firstWord(v2.data.detail);
  const v1 = v1ErrorSchema.safeParse(body);
  if (v1.success) return firstWord((Array.isArray(v1.data.Errors) ? v1.data.Errors[0]! : v1.data.Errors).description);
  return null;
}

function firstWord(text: string): string | null {
  const code = /^[A-Za-z_]+/.exec(text.trim())?.[0];
  return code ? code : null;
}

export function toDirectoryUser(user: z.infer<typeof scimUserSchema>): DirectoryUser {
  const primary = user.emails?.find((e) => e.primary === true) ?? null;
  return {
    id: user.id,
    email: primary && primary.value.includes('@') ? primary.value : null,
    active: user.active === true,
    timeZone: user.timezone ? user.timezone : null,
    // The spec: displayName is used in preference to userName, and comes back "" when unset.
    displayName: user.displayName || user.userName || user.id,
  };
}

export function toDirectoryGroup(group: z.infer<typeof scimGroupSchema>): DirectoryGroup {
  return { id: group.id, displayName: group.displayName, memberIds: [...new Set((group.members ?? []).map((m) => m.value))] };
}

/** The spec's largest directory is far below this many list pages; a list that pages on past it is broken, not big. */
export const MAX_LIST_PAGES = 200;

/** Where paging goes after a page: on until totalResults is reached, never trusting a short page. */
export type NextPage = { kind: 'done' } | { kind: 'next'; startIndex: number } | { kind: 'missing' };

export function nextPage(startIndex: number, received: number, totalResults: number): NextPage {
  const seen = startIndex - 1 + received;
  if (seen >= totalResults) return { kind: 'done' };
  // An empty page while more remain is a page that went missing, not the end of the list.
  if (received === 0) return { kind: 'missing' };
  return { kind: 'next', startIndex: seen + 1 };
}
