/** chat.postMessage and chat.update as the app will use them, the channel kept with every edit, and the page a reader sees. */
import { describe, expect, it } from 'vitest';
import { failure, startWebApi } from './web-api-helpers.ts';

type StoredMessage = { ts: string; text: string; editCount: number; previous: { text: string }[]; threadTs: string | null; blocks: unknown };

describe('chat.postMessage and chat.update', () => {
  it('keeps the message, each edit in order, and the thread replies', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const posted = await api.form('chat.postMessage', { channel: '#status', text: 'Investigating' }, ws.token);
    expect(posted.body).toMatchObject({
      ok: true,
      channel,
      ts: expect.stringMatching(/^\d{10}\.\d{6}$/),
      message: { text: 'Investigating', user: ws.botUserId, bot_id: expect.any(String) },
    });
    const ts = posted.body.ts as string;
    const updated = await api.form('chat.update', { channel, ts, text: 'Identified' }, ws.token);
    expect(updated.body).toMatchObject({ ok: true, channel, ts, text: 'Identified', message: { edited: { user: ws.botUserId, ts: expect.any(String) } } });
    expect(
      (await api.json('chat.update', { channel, ts, text: 'Resolved', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Resolved' } }] }, ws.token))
        .body.ok,
    ).toBe(true);
    const reply = await api.form('chat.postMessage', { channel, text: 'Details in thread', thread_ts: ts }, ws.token);
    expect(reply.body.message).toMatchObject({ thread_ts: ts });

    const stored = (await api.control('GET', `/channels/${channel}`)).body as { messages: StoredMessage[] };
    expect(stored.messages).toHaveLength(2);
    expect(stored.messages[0]).toMatchObject({
      ts,
      text: 'Resolved',
      editCount: 2,
      previous: [{ text: 'Investigating' }, { text: 'Identified' }],
      threadTs: ts,
    });
    expect(stored.messages[1]).toMatchObject({ text: 'Details in thread', threadTs: ts });

    const history = await api.form('conversations.history', { channel }, ws.token);
    expect(history.body.messages).toEqual([
      expect.objectContaining({ ts, text: 'Resolved', reply_count: 1, latest_reply: reply.body.ts, edited: expect.any(Object) }),
    ]);
  });

  it('refuses what the vendor refuses: unknown channel, channel without the bot, archived, no text, too long, bad blocks, others\u2019 messages', async () => {
    const api = await startWebApi();
    const ws = await api.workspace({ channels: [{ name: 'status' }, { name: 'quiet', botIsMember: false }, { name: 'gone', isArchived: true }] });
    const post = (fields: Record<string, string>) => api.form('chat.postMessage', fields, ws.token);
    expect(failure(await post({ channel: 'C0NOPE', text: 'x' }))).toEqual([200, false, 'channel_not_found']);
    expect(failure(await post({ channel: ws.channels.quiet!, text: 'x' }))).toEqual([200, false, 'not_in_channel']);
    expect(failure(await post({ channel: ws.channels.gone!, text: 'x' }))).toEqual([200, false, 'is_archived']);
    expect(failure(await post({ channel: ws.channels.status! }))).toEqual([200, false, 'no_text']);
    expect(failure(await post({ channel: ws.channels.status!, text: 'x'.repeat(40_001) }))).toEqual([200, false, 'msg_too_long']);
    expect(failure(await post({ channel: ws.channels.status!, blocks: '[{"type":' }))).toEqual([200, false, 'invalid_blocks_format']);
    expect(failure(await post({ channel: ws.channels.status!, blocks: JSON.stringify(Array.from({ length: 51 }, () => ({ type: 'divider' }))) }))).toEqual([
      200,
      false,
      'invalid_blocks',
    ]);
    expect(failure(await post({ channel: ws.channels.status!, text: 'x', thread_ts: '1700000000.000001' }))).toEqual([200, false, 'thread_not_found']);

    const [personTs] = (await api.control('POST', `/channels/${ws.channels.status}/messages`, { messages: [{ text: 'a person wrote this' }] })).body
      .ts as string[];
    expect(failure(await api.form('chat.update', { channel: ws.channels.status!, ts: personTs!, text: 'hijacked' }, ws.token))).toEqual([
      200,
      false,
      'cant_update_message',
    ]);
    expect(failure(await api.form('chat.update', { channel: ws.channels.status!, ts: '1700000000.000001', text: 'x' }, ws.token))).toEqual([
      200,
      false,
      'message_not_found',
    ]);
    const stored = (await api.control('GET', `/channels/${ws.channels.status}`)).body as { messages: StoredMessage[] };
    expect(stored.messages.map((m) => m.text)).toEqual(['a person wrote this']);
  });

  it('deletes a message as a person would: a root goes with its thread, and the app then finds neither', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const root = (await api.form('chat.postMessage', { channel, text: 'Investigating' }, ws.token)).body.ts as string;
    await api.form('chat.postMessage', { channel, text: 'in the thread', thread_ts: root }, ws.token);
    const other = (await api.form('chat.postMessage', { channel, text: 'another incident' }, ws.token)).body.ts as string;

    expect((await api.control('DELETE', `/channels/${channel}/messages/${root}`)).body).toEqual({ ok: true, deleted: 2 });
    expect((await api.control('DELETE', `/channels/${channel}/messages/${root}`)).status).toBe(404);
    expect(failure(await api.form('chat.update', { channel, ts: root, text: 'Identified' }, ws.token))).toEqual([200, false, 'message_not_found']);
    expect(failure(await api.form('chat.postMessage', { channel, text: 'late reply', thread_ts: root }, ws.token))).toEqual([200, false, 'thread_not_found']);
    const stored = (await api.control('GET', `/channels/${channel}`)).body as { messages: StoredMessage[] };
    expect(stored.messages.map((m) => m.ts)).toEqual([other]);
  });
});

describe('the channel page', () => {
  it('shows the latest text, an (edited) mark, earlier versions and the thread, with every value escaped', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const posted = await api.form('chat.postMessage', { channel, text: `first ${hostile}` }, ws.token);
    const ts = posted.body.ts as string;
    await api.form('chat.update', { channel, ts, text: 'second &amp; final' }, ws.token);
    await api.form(
      'chat.postMessage',
      { channel, thread_ts: ts, blocks: JSON.stringify([{ type: 'section', text: { type: 'mrkdwn', text: `reply ${hostile}` } }]) },
      ws.token,
    );
    await api.form('chat.postMessage', { channel, text: 'unedited' }, ws.token);

    const res = await fetch(`${api.url}/channels/${channel}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('second &amp;amp; final');
    expect(html).toContain('first &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('reply &lt;script&gt;');
    expect(html.match(/\(edited\)/g)).toHaveLength(1);
    expect(html).toContain('1 edit: earlier versions');
    expect(html).toMatch(/<ol class="thread"[^>]*>.*reply &lt;script&gt;/s);
    // Oldest first, as a reader scrolls.
    expect(html.indexOf('second &amp;amp; final')).toBeLessThan(html.indexOf('unedited'));

    const index = await (await fetch(`${api.url}/`)).text();
    expect(index).toContain(`href="/channels/${channel}"`);
    expect((await fetch(`${api.url}/channels/C0MISSING`)).status).toBe(404);
  });
});

describe('message metadata and conversations.replies', () => {
  it('shows mrkdwn *bold* in sections and context as a reader does, never in headers, still escaped', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Title *not bold*' } },
      { type: 'section', text: { type: 'mrkdwn', text: '*Status*\nResolved * not bold * and *<b>x</b>*' } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Updated *now*' }] },
    ];
    await api.form('chat.postMessage', { channel, blocks: JSON.stringify(blocks) }, ws.token);
    const html = await (await fetch(`${api.url}/channels/${channel}`)).text();
    expect(html).toContain('Title *not bold*');
    expect(html).toContain('<strong>Status</strong>\nResolved * not bold * and <strong>&lt;b&gt;x&lt;/b&gt;</strong>');
    expect(html).toContain('Updated <strong>now</strong>');
    expect(html).not.toContain('<b>');
  });

  it('shows a date token as a <time> of that instant, rendered in UTC with the page\u2019s own script to show the viewer\u2019s zone', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    // 2026-11-26T21:52:11-08:00, as the app posts it; then a hostile format and a token sent escaped.
    const blocks = [
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'Updated <!date^1795758731^{date_short_pretty} at {time}|2026-11-27 05:52 UTC>' }] },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'Odd <!date^1795758731^{date_num}" onmouseover="x|&lt;b&gt;fallback> and &lt;!date^1795758731^{time}|y&gt;' },
      },
      { type: 'header', text: { type: 'plain_text', text: 'Plain <!date^1795758731^{time}|stays text>' } },
    ];
    await api.form('chat.postMessage', { channel, blocks: JSON.stringify(blocks) }, ws.token);
    const res = await fetch(`${api.url}/channels/${channel}`);
    const html = await res.text();
    expect(html).toContain(
      'Updated <time datetime="2026-11-27T05:52:11.000Z" data-epoch="1795758731" data-date-format="{date_short_pretty} at {time}" title="2026-11-27 05:52 UTC">',
    );
    expect(html).toMatch(/data-date-format="\{date_short_pretty\} at \{time\}"[^>]*>(Nov 27, 2026|today|yesterday|tomorrow) at 5:52 AM UTC<\/time>/);
    // The hostile format stays inside its attribute, and the escaped token stays text.
    expect(html).toContain('data-date-format="{date_num}&quot; onmouseover=&quot;x" title="&lt;b&gt;fallback"');
    expect(html).toContain('>2026-11-27&quot; onmouseover=&quot;x UTC</time>');
    expect(html).toContain('and &lt;!date^1795758731^{time}|y&gt;');
    expect(html).toContain('Plain &lt;!date^1795758731^{time}|stays text&gt;');
    // The one script that runs is the page's own: the policy names its nonce.
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonce).toBeTruthy();
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`<script nonce="${nonce}">(function(){`);
    expect(html).toContain('var formatDateToken=function formatDateToken(');
  });

  it('keeps metadata on the message and gives it back only to history and replies that ask', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const metadata = { event_type: 'statuswatch_incident', event_payload: { incident_id: '1600' } };
    const posted = await api.form('chat.postMessage', { channel, text: 'root', metadata: JSON.stringify(metadata) }, ws.token);
    expect(posted.body.message).not.toHaveProperty('metadata');
    const ts = posted.body.ts as string;
    const reply = await api.json(
      'chat.postMessage',
      { channel, text: 'reply', thread_ts: ts, metadata: { event_type: 'statuswatch_update', event_payload: { delivery_key: 'k1' } } },
      ws.token,
    );
    expect(reply.body.ok).toBe(true);
    // An edit without metadata keeps it.
    expect((await api.form('chat.update', { channel, ts, text: 'root, edited' }, ws.token)).body).not.toHaveProperty('message.metadata');

    const plain = await api.form('conversations.history', { channel }, ws.token);
    expect(plain.body.messages).toEqual([expect.not.objectContaining({ metadata: expect.anything() })]);
    const asked = await api.form('conversations.history', { channel, include_all_metadata: 'true' }, ws.token);
    expect((asked.body.messages as { metadata: unknown }[]).map((m) => m.metadata)).toEqual([metadata]);

    const thread = await api.form('conversations.replies', { channel, ts, include_all_metadata: 'true' }, ws.token);
    expect((thread.body.messages as { text: string; metadata: unknown }[]).map((m) => [m.text, m.metadata])).toEqual([
      ['root, edited', metadata],
      ['reply', { event_type: 'statuswatch_update', event_payload: { delivery_key: 'k1' } }],
    ]);
    const page = await fetch(`${api.url}/channels/${channel}`);
    expect(await page.text()).not.toContain('statuswatch_incident');
  });

  it('refuses malformed metadata, and a thread that is not there', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    expect(failure(await api.form('chat.postMessage', { channel, text: 'x', metadata: '{not json' }, ws.token))).toEqual([
      200,
      false,
      'invalid_metadata_format',
    ]);
    const noType = JSON.stringify({ event_type: 'has space', event_payload: {} });
    expect(failure(await api.form('chat.postMessage', { channel, text: 'x', metadata: noType }, ws.token))).toEqual([200, false, 'invalid_metadata_schema']);
    const huge = JSON.stringify({ event_type: 'big', event_payload: { pad: 'x'.repeat(9_000) } });
    expect(failure(await api.form('chat.postMessage', { channel, text: 'x', metadata: huge }, ws.token))).toEqual([200, false, 'invalid_metadata_format']);
    expect(failure(await api.form('conversations.replies', { channel, ts: '1.000001' }, ws.token))).toEqual([200, false, 'thread_not_found']);
  });

  it('pages a long thread with cursors, parent first, never ending early on a short page', async () => {
    const api = await startWebApi();
    const ws = await api.workspace();
    const channel = ws.channels.status!;
    const ts = (await api.form('chat.postMessage', { channel, text: 'root' }, ws.token)).body.ts as string;
    for (let n = 1; n <= 7; n++) await api.form('chat.postMessage', { channel, text: `reply ${n}`, thread_ts: ts }, ws.token);
    await api.settings({ maxPageItems: 2 });
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const answer = await api.form('conversations.replies', { channel, ts, limit: '3', ...(cursor ? { cursor } : {}) }, ws.token);
      seen.push(...(answer.body.messages as { text: string }[]).map((m) => m.text));
      cursor = ((answer.body.response_metadata as { next_cursor?: string } | undefined)?.next_cursor as string) ?? '';
      if (!cursor) break;
    }
    expect(seen).toEqual(['root', ...Array.from({ length: 7 }, (_, i) => `reply ${i + 1}`)]);
  });
});
