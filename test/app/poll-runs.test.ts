/**
 * The poll runs every face lists, over a real SQLite archive: newest first, a page at a time after
 * a signed cursor as every list pages, `before` (epoch ms) still read where no cursor is given;
 * the admin API and the admin page walk the same runs in the same order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollRunPage, type PollRunDeps } from '../../src/app/poll-runs.ts';
import { createCursorCodec } from '../../src/core/cursor.ts';
import { pollRun } from '../contracts/archive-polls.ts';
import { appFaces } from '../helpers/app-faces.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 10, 1);
const MINUTE_MS = 60_000;

describe('the poll runs every face lists', () => {
  let archive: TempArchive;
  /** The runs' ids, newest first. */
  let newestFirst: string[];
  beforeEach(() => {
    archive = openTempArchive();
  });
  afterEach(() => archive.remove());

  async function record(count: number): Promise<void> {
    const runs = Array.from({ length: count }, (_, i) => pollRun(T0 + i * MINUTE_MS));
    for (const run of runs) await archive.store.recordPollRun(run, []);
    newestFirst = runs.map((r) => r.id).reverse();
  }

  it('pages 7 runs by 3, newest first, with a cursor of its own list, and reads `before` only without a cursor', async () => {
    await record(7);
    const deps: PollRunDeps = { store: archive.store, cursors: await createCursorCodec('a test secret of enough length for the cursor key') };
    const ask = (cursor: string | undefined, beforeStartedAt: number | null = null) => pollRunPage(deps, { list: 'polls', cursor, limit: 3, beforeStartedAt });
    const first = await ask(undefined);
    const second = await ask(first.next);
    const third = await ask(second.next);
    expect([first, second, third].map((p) => p.page.map((r) => r.id))).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3, 6), newestFirst.slice(6)]);
    expect(third.next).toBe('');
    // `before` names a start time: the runs that started before the fifth newest.
    expect((await ask(undefined, T0 + 2 * MINUTE_MS)).page.map((r) => r.id)).toEqual(newestFirst.slice(5));
    expect((await ask(first.next, T0 + 2 * MINUTE_MS)).page.map((r) => r.id)).toEqual(newestFirst.slice(3, 6));
    await expect(pollRunPage(deps, { list: 'admin-polls', cursor: first.next, limit: 3, beforeStartedAt: null })).rejects.toMatchObject({
      code: 'invalid_cursor',
    });
  });

  it('the admin API and the admin page walk the same runs, page by page', async () => {
    await record(53);
    const faces = await appFaces(archive);
    const apiPages: string[][] = [];
    let cursor = '';
    do {
      const { status, body } = await faces.api<{ polls: { id: string }[]; response_metadata: { next_cursor: string } }>(
        `/api/admin/polls?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status).toBe(200);
      apiPages.push(body.polls.map((p) => p.id));
      cursor = body.response_metadata.next_cursor;
    } while (cursor);
    const htmlPages: string[][] = [];
    let path: string | undefined = '/admin/polls';
    while (path) {
      const page = await faces.admin.get(path);
      expect(page.status).toBe(200);
      htmlPages.push([...page.html.matchAll(/href="\/admin\/polls\/([^"?]+)"/g)].map((m) => decodeURIComponent(m[1]!)));
      path = /href="(\/admin\/polls\?cursor=[^"]+)"/.exec(page.html)?.[1]?.replaceAll('&amp;', '&');
    }
    expect(apiPages).toEqual([newestFirst.slice(0, 50), newestFirst.slice(50)]);
    expect(htmlPages).toEqual(apiPages);
    // The documented `before` reads the same runs on both faces.
    const before = T0 + 3 * MINUTE_MS;
    const api = await faces.api<{ polls: { id: string }[] }>(`/api/admin/polls?before=${before}`);
    const html = await faces.admin.get(`/admin/polls?before=${before}`);
    expect(api.body.polls.map((p) => p.id)).toEqual(newestFirst.slice(50));
    expect([...html.html.matchAll(/href="\/admin\/polls\/([^"?]+)"/g)].map((m) => m[1])).toEqual(newestFirst.slice(50));
  });

  it('the admin page says a page link is not valid, and the API refuses it as invalid_cursor', async () => {
    await record(2);
    const faces = await appFaces(archive);
    expect((await faces.api('/api/admin/polls?cursor=made-up')).body).toMatchObject({ ok: false, error: 'invalid_cursor' });
    const page = await faces.admin.get('/admin/polls?cursor=made-up');
    expect(page.status).toBe(400);
    expect(page.html).toContain('Page link not valid');
  });
});
