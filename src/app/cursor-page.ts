/**
 * Pages of a list read after a cursor: the one way every list, on every face, pages. A cursor is
 * a signed `{ k: list name, ...position fields }`; the fields of every list stay as they were
 * first issued, so a cursor a client kept still reads its next page.
 */
import type { CursorCodec } from '../core/cursor.ts';
import { ApiError } from '../core/errors.ts';

/**
 * How one list writes its position in its cursors. `name` is the cursor's `k`, the scope included
 * (`members sub_1`): a cursor of one list is refused by another.
 */
export type CursorList<Position> = {
  name: string;
  /** The position's fields beside `k`. */
  fields: (position: Position) => Record<string, unknown>;
  /** The position a cursor of this list names, or null when the fields are not ones it writes. */
  position: (fields: Record<string, unknown>) => Position | null;
};

export type Page<Row> = { page: Row[]; next: string };

/**
 * A list whose position is one string or number under `field`: the older lists keep theirs (`a`,
 * `b`, `s`), so the cursors they issued stay valid. `accepts` narrows what a position may be.
 */
export function keyedList<Position extends string | number>(
  name: string,
  field = 'p',
  accepts: (value: string | number) => boolean = () => true,
): CursorList<Position> {
  return {
    name,
    fields: (position) => ({ [field]: position }),
    position: (fields) => {
      const value = fields[field];
      return (typeof value === 'string' || typeof value === 'number') && accepts(value) ? (value as Position) : null;
    },
  };
}

/** A position that is a whole number (a sort key). */
export const isWhole = (value: string | number): boolean => typeof value === 'number' && Number.isSafeInteger(value);

/** A position that is a sequence number: whole, never negative. */
/** A text position: an id. */
export const isText = (value: string | number): boolean => typeof value === 'string';
export const isSequence = (value: string | number): boolean => isWhole(value) && (value as number) >= 0;

/** Decodes a cursor of `list` (null when none is given); anything else (gibberish, tampered, another list's) is invalid_cursor. */
export async function readPosition<Position>(cursors: CursorCodec, list: CursorList<Position>, raw: string | undefined): Promise<Position | null> {
  if (raw === undefined || raw === '') return null;
  const payload = await cursors.decode(raw);
  const fields = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
  const position = fields?.k === list.name ? list.position(fields) : null;
  if (position === null) throw new ApiError(400, 'invalid_cursor', 'the cursor is not one this API issued for this list');
  return position;
}

/** The cursor that reads `list` on from `position`. */
export function writeCursor<Position>(cursors: CursorCodec, list: CursorList<Position>, position: Position): Promise<string> {
  return cursors.encode({ k: list.name, ...list.fields(position) });
}

/** Reads one row more than `limit`: that row says whether another page exists, and is not shown. */
async function readAhead<Row, Position>(
  after: Position | null,
  limit: number,
  read: (after: Position | null, limit: number) => Promise<Row[]>,
): Promise<{ page: Row[]; more: boolean }> {
  const rows = await read(after, limit + 1);
  return { page: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * One page of a list after an already read position: `limit` rows, and the cursor from the last
 * of them when more follow ("" at the end).
 */
export async function pageAfter<Row, Position>(
  cursors: CursorCodec,
  list: CursorList<Position>,
  after: Position | null,
  limit: number,
  read: (after: Position | null, limit: number) => Promise<Row[]>,
  positionOf: (row: Row) => Position,
): Promise<Page<Row>> {
  const { page, more } = await readAhead(after, limit, read);
  const last = page.at(-1);
  return { page, next: more && last !== undefined ? await writeCursor(cursors, list, positionOf(last)) : '' };
}

/**
 * One page of a list that grows at its end (an event log): `resume` is always given, from the
 * last row shown or else where the reader was (`start` on a first page), so a consumer can come
 * back later for only what is new; `next` is that same cursor while the page is full, "" once it
 * is not.
 */
export async function logPageAfter<Row, Position>(
  cursors: CursorCodec,
  list: CursorList<Position>,
  after: Position | null,
  start: Position,
  limit: number,
  read: (after: Position, limit: number) => Promise<Row[]>,
  positionOf: (row: Row) => Position,
): Promise<Page<Row> & { resume: string }> {
  // Whether more follow is not asked: a full page hands on its cursor even when nothing follows yet.
  const page = await read(after ?? start, limit);
  const last = page.at(-1);
  const resume = await writeCursor(cursors, list, last === undefined ? (after ?? start) : positionOf(last));
  return { page, next: page.length === limit ? resume : '', resume };
}

/**
 * One page of a list keyed by one position field (see keyedList), read after the request's
 * cursor; an invalid_cursor ApiError for a cursor of another list.
 */
export async function cursorPage<Row, Position extends string | number>(
  cursors: CursorCodec,
  request: { cursor: string | undefined; limit: number },
  list: string,
  read: (after: Position | null, limit: number) => Promise<Row[]>,
  positionOf: (row: Row) => Position,
  position: { accepts: (value: string | number) => boolean; field?: string },
): Promise<Page<Row>> {
  const keyed = keyedList<Position>(list, position.field ?? 'p', position.accepts);
  const after = await readPosition(cursors, keyed, request.cursor);
  return pageAfter(cursors, keyed, after, request.limit, read, positionOf);
}
