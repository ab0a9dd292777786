/** Pages of a list read after a cursor: the one way every list, on every face, pages. */
import type { CursorCodec } from '../core/cursor.ts';
import { ApiError } from '../core/errors.ts';

/** Decodes a cursor of the given kind; anything else (gibberish, tampered, another list's) is invalid_cursor. */
export async function readCursor<T>(cursors: CursorCodec, raw: string | undefined, parse: (payload: unknown) => T | null): Promise<T | null> {
  if (raw === undefined || raw === '') return null;
  const payload = await cursors.decode(raw);
  const position = payload === null ? null : parse(payload);
  if (position === null) throw new ApiError(400, 'invalid_cursor', 'the cursor is not one this API issued for this list');
  return position;
}

/**
 * One page of a list keyed by a position: reads `limit + 1` rows after the cursor, keeps `limit`,
 * and encodes the next cursor from the last kept row ("" when there is no more). `list` names the
 * list in its cursors, the scope included (`members sub_1`): a cursor of one list is refused by
 * another (an invalid_cursor ApiError). `field` names the position in the cursor: the older
 * lists keep theirs (`a`, `b`), so the cursors they issued stay valid.
 */
export async function cursorPage<Row, Position extends string | number>(
  cursors: CursorCodec,
  request: { cursor: string | undefined; limit: number },
  list: string,
  read: (after: Position | null, limit: number) => Promise<Row[]>,
  positionOf: (row: Row) => Position,
  field = 'p',
): Promise<{ page: Row[]; next: string }> {
  const after = await readCursor(cursors, request.cursor, (p) => {
    if (typeof p !== 'object' || p === null) return null;
    const payload = p as Record<string, unknown>;
    const position = payload[field];
    return payload.k === list && (typeof position === 'string' || typeof position === 'number') ? (position as Position) : null;
  });
  const { limit } = request;
  const rows = await read(after, limit + 1);
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? await cursors.encode({ k: list, [field]: positionOf(page.at(-1)!) }) : '';
  return { page, next };
}
