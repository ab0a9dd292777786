/**
 * Cursor pagination as the spec states it, through conversations.history and conversations.list:
 * first page without cursor, next_cursor while more remain, limit adjusted silently, short pages
 * that are not the end, invalid_cursor for gibberish, mangled or old cursors.
 */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/sim/web-api/pagination.ts';
import { failure, startWebApi, T0, type Answer, type WebApiClient } from './web-api-helpers.ts';

/** A channel holding `count` messages "m0".."m<count-1>", oldest first. */
async function channelWith(api: WebApiClient, count: number) {
  const ws = await api.workspace();
  const channel = ws.channels.status!;
  const seeded = await api.control('POST', `/channels/${channel}/messages`, { messages: Array.from({ length: count }, (_, i) => ({ text: `m${i}` })) });
  expect(seeded.status).toBe(201);
  return { ws, channel };
}

const texts = (a: Answer): string[] => (a.body.messages as { text: string }[]).map((m) => m.text);
const nextCursor = (a: Answer): unknown => (a.body.response_metadata as { next_cursor?: unknown } | undefined)?.next_cursor;

/** Follows next_cursor until it is empty, null or absent, as the spec says a client must. */
async function readAll(api: WebApiClient, method: string, fields: Record<string, string>, token: string, key: string) {
  const pages: number[] = [];
  const items: unknown[] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard += 1) {
    const res = await api.form(method, cursor ? { ...fields, cursor } : fields, token);
    expect(res.body.ok, JSON.stringify(res.body)).toBe(true);
    const page = res.body[key] as unknown[];
    pages.push(page.length);
    items.push(...page);
    const next = nextCursor(res);
    if (next === '' || next === null || next === undefined) return { pages, items, cursors };
    cursor = next as string;
    cursors.push(cursor);
  }
  throw new Error('pagination did not end');
}

describe('conversations.history pages', () => {
  it('without a cursor the first page comes, newest first, with a next_cursor while more remain', async () => {
    const api = await startWebApi();
    const { ws, channel } = await channelWith(api, 5);
    const first = await api.form('conversations.history', { channel, limit: '2' }, ws.token);
    expect(texts(first)).toEqual(['m4', 'm3']);
    expect(first.body.has_more).toBe(true);
    expect(nextCursor(first)).toEqual(expect.any(String));
    const all = await readAll(api, 'conversations.history', { channel, limit: '2' }, ws.token, 'messages');
    expect(all.pages).toEqual([2, 2, 1]);
    expect(all.items.map((m) => (m as { text: string }).text)).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
  });

  it('limit is adjusted silently: absent or not a number gives 100, above 1000 gives 1000, 0 or less gives 1', async () => {
    const api = await startWebApi();
    const { ws, channel } = await channelWith(api, 1200);
    const count = async (limit?: string) => {
      const res = await api.form('conversations.history', limit === undefined ? { channel } : { channel, limit }, ws.token);
      expect(res.body.ok).toBe(true);
      return texts(res).length;
    };
    expect(await count()).toBe(100);
    expect(await count('abc')).toBe(100);
    expect(await count('5000')).toBe(1000);
    expect(await count('0')).toBe(1);
    expect(await count('-3')).toBe(1);
    expect(await count('7.9')).toBe(7);
    const asJson = await api.json('conversations.history', { channel, limit: 3 }, ws.token);
    expect(texts(asJson)).toEqual(['m1199', 'm1198', 'm1197']);
  });

  it('pages shorter than limit still carry next_cursor: a client that stops at a short page loses messages', async () => {
    const api = await startWebApi({ settings: { maxPageItems: 7 } });
    const { ws, channel } = await channelWith(api, 30);
    const first = await api.form('conversations.history', { channel, limit: '50' }, ws.token);
    expect(texts(first)).toHaveLength(7);
    expect(nextCursor(first)).toEqual(expect.any(String));
    const all = await readAll(api, 'conversations.history', { channel, limit: '50' }, ws.token, 'messages');
    expect(all.pages).toEqual([7, 7, 7, 7, 2]);
    expect(new Set(all.items.map((m) => (m as { ts: string }).ts)).size).toBe(30);
  });

  it('a message posted between two pages neither repeats nor hides one', async () => {
    const api = await startWebApi();
    const { ws, channel } = await channelWith(api, 6);
    const first = await api.form('conversations.history', { channel, limit: '3' }, ws.token);
    expect((await api.form('chat.postMessage', { channel, text: 'new' }, ws.token)).body.ok).toBe(true);
    const second = await api.form('conversations.history', { channel, limit: '3', cursor: nextCursor(first) as string }, ws.token);
    expect([...texts(first), ...texts(second)]).toEqual(['m5', 'm4', 'm3', 'm2', 'm1', 'm0']);
  });

  it('the end of the list is said in each form the spec allows: empty, null or absent next_cursor', async () => {
    const api = await startWebApi();
    const { ws, channel } = await channelWith(api, 2);
    const last = async () => (await api.form('conversations.history', { channel }, ws.token)).body;
    expect(await last()).toMatchObject({ has_more: false, response_metadata: { next_cursor: '' } });
    await api.settings({ endCursor: 'null' });
    expect(await last()).toMatchObject({ response_metadata: { next_cursor: null } });
    await api.settings({ endCursor: 'absent' });
    expect(await last()).not.toHaveProperty('response_metadata');
  });
});

describe('cursors', () => {
  it('every cursor ends in "=" whatever its position, and reads back to that position', () => {
    for (const after of ['1', '12', '123', '1234', '1700000000.000001']) {
      const cursor = encodeCursor({ method: 'conversations.list', scope: 'T1', after, issuedMs: T0 });
      expect(cursor).toMatch(/[^=]=$/);
      expect(decodeCursor(cursor, { method: 'conversations.list', scope: 'T1', nowMs: T0, lifetimeMs: 1000 })).toBe(after);
    }
  });

  it('cursors end in "=" and must come back URL-encoded; mangled, made-up or foreign ones are invalid_cursor', async () => {
    const api = await startWebApi();
    const { ws, channel } = await channelWith(api, 5);
    const first = await api.form('conversations.history', { channel, limit: '2' }, ws.token);
    const cursor = nextCursor(first) as string;
    expect(cursor).toMatch(/=$/);
    // Sent URL-encoded (the = as %3D) in a query string, it continues where the form call would.
    const viaQuery = await fetch(`${api.url}/api/conversations.history?channel=${channel}&limit=2&cursor=${encodeURIComponent(cursor)}`, {
      headers: { Authorization: `Bearer ${ws.token}` },
    });
    expect(((await viaQuery.json()) as { messages: { text: string }[] }).messages.map((m) => m.text)).toEqual(['m2', 'm1']);
    for (const bad of [cursor.replace(/=+$/, ''), 'gibberish', 'dXNlcjpVMDYxTkZUVDI=', cursor.replace(/=/g, '%3D')]) {
      expect(failure(await api.form('conversations.history', { channel, cursor: bad }, ws.token)), bad).toEqual([200, false, 'invalid_cursor']);
    }
    // Another workspace's channel is not this token's to read, cursor or not.
    const otherWorkspace = await api.workspace({ name: 'Other' });
    expect(failure(await api.form('conversations.history', { channel: otherWorkspace.channels.status!, cursor }, ws.token))).toEqual([
      200,
      false,
      'channel_not_found',
    ]);
  });

  it('a cursor from another list is refused', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ channels: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    await api.control('POST', `/channels/${ws.channels.a}/messages`, { messages: [{ text: '1' }, { text: '2' }, { text: '3' }] });
    const listPage = await api.form('conversations.list', { limit: '1' }, ws.token);
    const historyPage = await api.form('conversations.history', { channel: ws.channels.a!, limit: '1' }, ws.token);
    expect(failure(await api.form('conversations.history', { channel: ws.channels.a!, cursor: nextCursor(listPage) as string }, ws.token))).toEqual([
      200,
      false,
      'invalid_cursor',
    ]);
    expect(failure(await api.form('conversations.history', { channel: ws.channels.b!, cursor: nextCursor(historyPage) as string }, ws.token))).toEqual([
      200,
      false,
      'invalid_cursor',
    ]);
  });

  it('cursors expire: one older than the cursor lifetime is invalid_cursor', async () => {
    const api = await startWebApi({ settings: { cursorLifetimeMs: 60_000 } });
    await api.setClock(T0);
    const { ws, channel } = await channelWith(api, 5);
    const cursor = nextCursor(await api.form('conversations.history', { channel, limit: '2' }, ws.token)) as string;
    await api.setClock(T0 + 60_000);
    expect((await api.form('conversations.history', { channel, limit: '2', cursor }, ws.token)).body.ok).toBe(true);
    await api.setClock(T0 + 60_001);
    const old = await api.form('conversations.history', { channel, limit: '2', cursor }, ws.token);
    expect(failure(old)).toEqual([200, false, 'invalid_cursor']);
    expect(old.body.detail).toContain('too old');
  });
});

describe('conversations.list pages', () => {
  it('walks every channel once through short pages, private ones only when asked and the bot is in them', async () => {
    const api = await startWebApi({ settings: { maxPageItems: 3 } });
    const channels = Array.from({ length: 20 }, (_, i) => ({ name: `c${i}` }));
    const ws = await api.workspace({
      channels: [
        ...channels,
        { name: 'secret', isPrivate: true },
        { name: 'elsewhere', isPrivate: true, botIsMember: false },
        { name: 'old', isArchived: true },
      ],
    });
    const publicOnly = await readAll(api, 'conversations.list', { limit: '10' }, ws.token, 'channels');
    expect(publicOnly.pages).toEqual([3, 3, 3, 3, 3, 3, 3]);
    expect(publicOnly.items.map((c) => (c as { name: string }).name)).toEqual([...channels.map((c) => c.name), 'old']);
    // Positions of different lengths: each cursor still ends in "=", as the spec's rule 3 expects of them.
    expect(publicOnly.cursors.filter((c) => !c.endsWith('='))).toEqual([]);
    const both = await readAll(
      api,
      'conversations.list',
      { limit: '10', types: 'public_channel,private_channel', exclude_archived: 'true' },
      ws.token,
      'channels',
    );
    expect(both.items.map((c) => (c as { name: string }).name)).toEqual([...channels.map((c) => c.name), 'secret']);
    expect(both.items[20]).toMatchObject({ name: 'secret', is_private: true, is_channel: false, is_member: true });
  });
});
