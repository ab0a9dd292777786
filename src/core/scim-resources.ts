/** Zod schemas for the SCIM answers a reading client gets (user, group, list, error body), and their conversions. */
import { z } from 'zod';
import { EMAIL_MAX_CHARS, singleAddress } from './email-address.ts';
import { readRecord, type RecordSkip } from './outside-records.ts';
import { isScimErrorCode } from './scim-errors.ts';
import { wellFormed, wellFormedKey, wellFormedPrefix } from './well-formed-text.ts';

export type ScimVersionName = 'v2' | 'v1';

/** A directory user as group subscriptions need it. */
export type DirectoryUser = {
  id: string;
  /** The primary email; null when the user has none (such a member receives nothing). */
  email: string | null;
  /**
   * The directory's primary email when it is not one bare address (core/email-address.ts): the
   * member's `email` is then null, so nothing is sent, and the audit list shows this value. Never stored.
   */
  refusedEmail?: string;
  active: boolean;
  /** The user's own IANA zone from the directory, when set: it wins over the subscription's. */
  timeZone: string | null;
  displayName: string;
};

export type DirectoryGroup = { id: string; displayName: string; memberIds: string[]; skipped: SkippedRecord[] };

// The spec's largest group is 15,000 members; a page is at most 1,000 resources. Bounds a little
// above both keep a runaway answer from being held in memory.
const MAX_GROUP_MEMBERS = 20_000;
const MAX_PAGE_RESOURCES = 1_000;
/** The directory's text, made well formed (core/well-formed-text.ts) as it is read. */
const text = (max: number) => z.string().max(max, `longer than ${max} characters`).transform(wellFormed);
/** A directory id: a key, so one with half a surrogate pair is refused, never repaired. */
const ID_MAX_CHARS = 100;
const scimId = wellFormedKey().min(1).max(ID_MAX_CHARS, `longer than ${ID_MAX_CHARS} characters`);

const emailSchema = z.object({ value: text(EMAIL_MAX_CHARS), type: text(50).nullish(), primary: z.boolean().nullish() });

// Each field a sync keeps has a bound: a record past one is skipped (readUser), not cut short.
export const scimUserSchema = z.object({
  id: scimId,
  userName: text(200).nullish(),
  displayName: text(400).nullish(),
  // The spec: "true or false"; a user without it is not known to be active, so it receives nothing.
  active: z.boolean().nullish(),
  timezone: text(100).nullish(),
  emails: z.array(emailSchema).max(10).nullish(),
});

const memberRefSchema = z.object({ value: scimId });

export const scimGroupSchema = z.object({
  id: scimId,
  displayName: text(400),
  // Each member is read on its own (readGroup): one malformed reference is skipped, not the group.
  members: z.array(z.unknown()).max(MAX_GROUP_MEMBERS).nullish(),
});

/** A record a sync left out, and why: it goes on the group's audit list. */
export type SkippedRecord = { userId: string | null; reason: string };

/** A user record as a sync reads it: the user, or why it was skipped. */
export type UserRead = { kind: 'user'; user: DirectoryUser } | { kind: 'skipped'; skipped: SkippedRecord };

/** One user record of a list page or a GET: the user, or the reason it is skipped (core/outside-records.ts). */
export function readUser(raw: unknown): UserRead {
  const read = readRecord(scimUserSchema, raw, 'id');
  if (read.kind === 'skipped') return { kind: 'skipped', skipped: { userId: read.skip.id, reason: read.skip.reason } };
  // An address that is not one bare address keeps the member, with no email: toDirectoryUser.
  return { kind: 'user', user: toDirectoryUser(read.record) };
}

/** A group record of a list page: the group, or the reason it is skipped (core/outside-records.ts). */
export function readGroup(raw: unknown): { kind: 'group'; group: DirectoryGroup } | { kind: 'skipped'; skip: RecordSkip } {
  const read = readRecord(scimGroupSchema, raw, 'id');
  return read.kind === 'skipped' ? read : { kind: 'group', group: toDirectoryGroup(read.record) };
}

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

/**
 * v2.0: the vendor's `detail` is the code; a directory that follows RFC 7644 to the letter puts free
 * text there. v1.1's body is "not shown" in the spec; the vendor sends `Errors` with a description.
 */
const v2ErrorSchema = z.object({ detail: z.string(), status: z.union([z.number(), z.string()]).nullish() });
const v1ErrorEntry = z.object({ description: z.string(), code: z.union([z.number(), z.string()]).nullish() });
const v1ErrorSchema = z.object({ Errors: z.union([v1ErrorEntry, z.array(v1ErrorEntry).min(1).max(20)]) });
/** An error body's text as the audit list keeps it. */
const MAX_ERROR_TEXT_CHARS = 500;

/** What an error body says: its code (null when it carries none we can read) and its whole text (bounded). */
export function scimErrorOf(body: unknown): { code: string | null; text: string | null } {
  const v2 = v2ErrorSchema.safeParse(body);
  const v1 = v2.success ? null : v1ErrorSchema.safeParse(body);
  const said = v2.success ? v2.data.detail : v1?.success ? (Array.isArray(v1.data.Errors) ? v1.data.Errors[0]! : v1.data.Errors).description : null;
  if (said === null) return { code: null, text: null };
  const text = wellFormedPrefix(said.trim(), MAX_ERROR_TEXT_CHARS);
  return { code: codeIn(text), text: text === '' ? null : text };
}

/** The error code an error body carries, or null when it carries none we can read. */
export function scimErrorCode(body: unknown): string | null {
  return scimErrorOf(body).code;
}

/**
 * The vendor's code at the head of an error text: a word in snake case that is the whole text, or
 * has an underscore, or is in the spec's table. Free text ("Resource G1 not found") has none: its
 * first word is not a code.
 */
function codeIn(text: string): string | null {
  const word = /^[a-z][a-z0-9_]*/.exec(text)?.[0];
  if (!word) return null;
  return word === text || word.includes('_') || isScimErrorCode(word) ? word : null;
}

export function toDirectoryUser(user: z.infer<typeof scimUserSchema>): DirectoryUser {
  const primary = user.emails?.find((e) => e.primary === true) ?? null;
  // A value mail software would read as a list (or a group, or with a display name) must never
  // reach a mailer: it would mail a stranger with this member's own unsubscribe link.
  const checked = primary ? singleAddress(primary.value) : null;
  return {
    id: user.id,
    email: checked?.ok ? checked.address : null,
    ...(primary && !checked?.ok ? { refusedEmail: primary.value } : {}),
    active: user.active === true,
    timeZone: user.timezone ? user.timezone : null,
    // The spec: displayName is used in preference to userName, and comes back "" when unset.
    displayName: user.displayName || user.userName || user.id,
  };
}

/** The group, its members' ids, and the member references it skipped (not a string id of at most 100 characters). */
export function toDirectoryGroup(group: z.infer<typeof scimGroupSchema>): DirectoryGroup {
  const memberIds = new Set<string>();
  const skipped: SkippedRecord[] = [];
  for (const member of group.members ?? []) {
    const ref = readRecord(memberRefSchema, member, 'value');
    if (ref.kind === 'record') memberIds.add(ref.record.value);
    // A reference whose value could be read as an id would not be skipped: no member to name.
    else skipped.push({ userId: null, reason: `group member ${ref.skip.reason}` });
  }
  return { id: group.id, displayName: group.displayName, memberIds: [...memberIds], skipped };
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
