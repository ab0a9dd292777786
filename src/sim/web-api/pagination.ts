/**
 * Cursor pagination as the spec describes it: `limit` adjusted silently, opaque cursors that
 * expire and are refused as invalid_cursor when gibberish, re-encoded or too old, and pages that
 * may be shorter than `limit` while more remain. Pure: time comes in as `nowMs`.
 */
import { ApiError } from './api-error.ts';
import type { EndCursorForm } from './settings.ts';

export const DEFAULT_LIMIT = 100;
/** "Maximum 1000, may vary by method". */
export const MAX_LIMIT = 1000;

/**
 * "Invalid limit values are adjusted silently to a sensible value rather than rejected": above
 * the maximum gives the maximum, zero or below gives 1, and what is not a number (or absent)
 * gives the default.
 */
export function effectiveLimit(raw: unknown): number {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^-?\d+(\.\d+)?$/.test(text)) return DEFAULT_LIMIT;
  const value = Math.floor(Number(text));
  return Math.min(MAX_LIMIT, Math.max(1, value));
}

/** What a cursor stands for: the method and list it belongs to, where the next page starts, when it was made. */
export type CursorPayload = { method: string; scope: string; after: string; issuedMs: number };

const SEPARATOR = '|';
const FILLER = '~';

/**
 * Standard base64 padded to end in `=`, as the vendor's do ("a cursor ending in = must be
 * URL-encoded"), so a client that mangles the padding or a `+` finds out here.
 */
export function encodeCursor(payload: CursorPayload): string {
  let text = [payload.method, payload.scope, payload.after, String(payload.issuedMs)].join(SEPARATOR);
  while (text.length % 3 !== 2) text += FILLER;
  return btoa(text);
}

export type CursorCheck = { method: string; scope: string; nowMs: number; lifetimeMs: number };

/** The position a cursor continues from; invalid_cursor when it is not one this list issued, or too old. */
export function decodeCursor(cursor: string, check: CursorCheck): string {
  let text: string;
  try {
    text = /^[A-Za-z0-9+/]+={0,2}$/.test(cursor) && cursor.length % 4 === 0 ? atob(cursor) : '';
  } catch {
    text = '';
  }
  const parts = text.replace(/~+$/, '').split(SEPARATOR);
  const [method, scope, after, issued] = parts;
  if (parts.length !== 4 || after === undefined || !/^\d{1,16}$/.test(issued ?? '')) {
    throw new ApiError('invalid_cursor', 'the cursor is not one this method issued (gibberish, or wrongly encoded: "=" must be sent as %3D, "+" as %2B)');
  }
  if (method !== check.method || scope !== check.scope) throw new ApiError('invalid_cursor', `the cursor belongs to another list (${method}), not this one`);
  const ageMs = check.nowMs - Number(issued);
  if (ageMs > check.lifetimeMs)
    throw new ApiError('invalid_cursor', `the cursor is too old (${Math.round(ageMs / 1000)} s; cursors last ${Math.round(check.lifetimeMs / 1000)} s)`);
  return after;
}

export type Page<T> = { items: T[]; nextAfter: string | null };

/**
 * One page of `items` (already in page order) starting at the first item `startsAfter(after)`
 * accepts. Positions are keys, not offsets, so a message posted between two calls neither
 * repeats nor hides an item, and a dropped item still leaves a place to continue from.
 */
export function pageAfter<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  after: string | null,
  size: number,
  startsAfter: (after: string, item: T) => boolean,
): Page<T> {
  const start = after === null ? 0 : items.findIndex((item) => startsAfter(after, item));
  const from = start === -1 ? items.length : start;
  const slice = items.slice(from, from + size);
  const more = from + size < items.length && slice.length > 0;
  return { items: slice, nextAfter: more ? keyOf(slice[slice.length - 1]!) : null };
}

/** response_metadata in the form the settings ask for when there is no next page. */
export function responseMetadata(nextCursor: string | null, endForm: EndCursorForm): { response_metadata?: { next_cursor?: string | null } } {
  if (nextCursor !== null) return { response_metadata: { next_cursor: nextCursor } };
  switch (endForm) {
    case 'empty':
      return { response_metadata: { next_cursor: '' } };
    case 'null':
      return { response_metadata: { next_cursor: null } };
    case 'absent':
      return {};
  }
}
