/**
 * Every list pages one way: a list read after a signed cursor, one row past the page telling
 * whether another follows, and a log (which grows at its end) handing back a cursor to resume
 * from. The cursors carry the fields each list has always written, so ones already issued stay valid.
 */
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../src/core/cursor.ts';
import { type CursorList, cursorPage, isSequence, isText, keyedList, logPageAfter, pageAfter, readPosition, writeCursor } from '../../src/app/cursor-page.ts';
import { cursorPayload as payloadOf } from '../helpers/cursor-payload.ts';

const cursors = await createCursorCodec('a test secret of enough length for the cursor key');

type Row = { seq: number };
const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => ({ seq: i + 1 }));
/** Rows after `after` in sequence order, at most `limit`, and how many were asked for. */
function readerOf(all: Row[]) {
  const asked: number[] = [];
  const read = async (after: number | null, limit: number) => {
    asked.push(limit);
    return all.filter((r) => r.seq > (after ?? 0)).slice(0, limit);
  };
  return { read, asked };
}

describe('pageAfter', () => {
  const list = keyedList<number>('things', 's', isSequence);

  it('pages 7 rows by 3 as 3, 3 and 1, reading one row ahead, with an empty cursor at the end', async () => {
    const { read, asked } = readerOf(rows(7));
    const seen: number[][] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const { page, next } = await pageAfter(cursors, list, await readPosition(cursors, list, cursor), 3, read, (r) => r.seq);
      seen.push(page.map((r) => r.seq));
      if (next === '') break;
      cursor = next;
    }
    expect(seen).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(asked).toEqual([4, 4, 4]);
  });

  it('ends on a full page when nothing follows it: no cursor to an empty page', async () => {
    const { read } = readerOf(rows(6));
    const second = await pageAfter(cursors, list, 3, 3, read, (r) => r.seq);
    expect([second.page.map((r) => r.seq), second.next]).toEqual([[4, 5, 6], '']);
  });

  it('writes the position under the list name and its own field, and refuses another list’s cursor', async () => {
    const { next } = await pageAfter(cursors, list, null, 2, readerOf(rows(5)).read, (r) => r.seq);
    expect(payloadOf(next)).toEqual({ k: 'things', s: 2 });
    const other = await writeCursor(cursors, keyedList<number>('others', 's'), 2);
    await expect(readPosition(cursors, list, other)).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
    const negative = await cursors.encode({ k: 'things', s: -1 });
    await expect(readPosition(cursors, list, negative)).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(readPosition(cursors, list, 'not-a-cursor')).rejects.toMatchObject({ code: 'invalid_cursor' });
    expect(await readPosition(cursors, list, '')).toBeNull();
  });
});

describe('logPageAfter', () => {
  // A log's cursor may carry more than the position: here the time the first page was asked from.
  const log: CursorList<{ seq: number; since: number }> = {
    name: 'log',
    fields: ({ seq, since }) => ({ s: seq, t: since }),
    position: ({ s, t }) => (typeof s === 'number' && typeof t === 'number' ? { seq: s, since: t } : null),
  };
  const since = 1_700_000_000_000;
  const page = (all: Row[], after: { seq: number; since: number } | null) =>
    logPageAfter(
      cursors,
      log,
      after,
      { seq: 0, since },
      3,
      (from, n) => readerOf(all).read(from.seq, n),
      (r) => ({ seq: r.seq, since }),
    );

  it('hands on its cursor while the page is full, and always gives one to resume from', async () => {
    const all = rows(4);
    const first = await page(all, null);
    expect([first.page.map((r) => r.seq), first.next === first.resume, payloadOf(first.resume)]).toEqual([[1, 2, 3], true, { k: 'log', s: 3, t: since }]);
    const second = await page(all, await readPosition(cursors, log, first.next));
    expect([second.page.map((r) => r.seq), second.next, payloadOf(second.resume)]).toEqual([[4], '', { k: 'log', s: 4, t: since }]);
  });

  it('resumes where the reader was when nothing is new, and later reads only what was added', async () => {
    const all = rows(4);
    const caughtUp = await page(all, { seq: 4, since });
    expect([caughtUp.page, caughtUp.next, payloadOf(caughtUp.resume)]).toEqual([[], '', { k: 'log', s: 4, t: since }]);
    const empty = await page([], null);
    expect(payloadOf(empty.resume)).toEqual({ k: 'log', s: 0, t: since });
    const later = await page(rows(6), await readPosition(cursors, log, caughtUp.resume));
    expect(later.page.map((r) => r.seq)).toEqual([5, 6]);
  });
});

describe('cursorPage', () => {
  it('refuses a signed cursor of its list whose position is not of the kind the list keeps', async () => {
    // A number where ids are text: the same list name and field, written by another kind of list.
    const numbered = await writeCursor(cursors, keyedList<number>('ids', 'a'), 3);
    const textual = await writeCursor(cursors, keyedList<string>('ids', 'a'), 'U3');
    const byId = (cursor: string) =>
      cursorPage(
        cursors,
        { cursor, limit: 2 },
        'ids',
        async (after: string | null, limit) => (after === null ? [] : [`after ${after}`].slice(0, limit)),
        (id) => id,
        {
          accepts: isText,
          field: 'a',
        },
      );
    await expect(byId(numbered)).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect((await byId(textual)).page).toEqual(['after U3']);
  });
});
