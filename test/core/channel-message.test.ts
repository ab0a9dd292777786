import { describe, expect, it } from 'vitest';
import { CHANNEL_NOTE_MAX_CHARS, escapeMrkdwn, renderChannelMessage } from '../../src/core/channel-message.ts';
import { allText, incidentUpdate } from '../fixtures/message-fixtures.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';

const update = incidentUpdate;

const context = { publicUrl: 'https://status.example.org' };
const active = rawIncident({ id: 1580, title: 'Some files fail to upload', services: ['Files', 'Canvases'] });
const resolved = rawIncident({
  ...active,
  status: 'resolved',
  date_updated: '2026-10-01T07:10:00-07:00',
  notes: [...active.notes, { body: '<p>Uploads work again.&nbsp;</p><p><br></p>', date_created: '2026-10-01T07:10:00-07:00' }],
});

describe('renderChannelMessage', () => {
  it('has a title line, status, services, the latest note as text and a link to our page', () => {
    const message = renderChannelMessage(update(resolved, active), context);
    expect(message.text).toBe('Resolved: Some files fail to upload (Resolved; Files, Canvases)');
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Resolved: Some files fail to upload', emoji: false } });
    expect(message.blocks[1]).toEqual({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Status*\nResolved (was Active)', verbatim: true },
        { type: 'mrkdwn', text: '*Services*\nFiles, Canvases', verbatim: true },
      ],
    });
    const texts = allText(message);
    expect(texts).toContain('Uploads work again.');
    expect(texts.join('\n')).toContain('<https://status.example.org/incidents/1580|View the incident>');
    expect(texts.join('\n')).toContain('<https://slack-status.com/2026-10/6c28dfb7b670dc02|Vendor status page>');
    expect(JSON.parse(JSON.stringify(message))).toEqual(message);
  });

  it("escapes the platform's control characters in vendor text, so a note cannot mention @channel or fake a link", () => {
    const hostile = rawIncident({
      title: 'Calls & Huddles <!channel>',
      services: ['<@U123>'],
      notes: [{ body: '<p>&lt;!channel&gt; click &lt;https://evil.example|https://slack.com&gt;</p>', date_created: '2026-10-01T05:39:35-07:00' }],
    });
    const message = renderChannelMessage(update(hostile), context);
    const joined = allText(message).join('\n');
    expect(joined).not.toMatch(/<!channel>|<@U123>|<https:\/\/evil/);
    expect(joined).toContain('Calls &amp; Huddles &lt;!channel&gt;');
    expect(joined).toContain('&lt;@U123&gt;');
    expect(joined).toContain('&lt;!channel&gt; click &lt;https://evil.example|https://slack.com&gt;');
  });

  it('cuts a long note to about 500 characters', () => {
    const long = rawIncident({ notes: [{ body: `<p>${'x'.repeat(2000)}</p>`, date_created: '2026-10-01T05:39:35-07:00' }] });
    const section = renderChannelMessage(update(long), context).blocks.find((b) => b.type === 'section' && b.text?.text.startsWith('x'));
    expect(section?.type === 'section' && section.text?.text.length).toBe(CHANNEL_NOTE_MAX_CHARS);
    expect(section?.type === 'section' && section.text?.text.endsWith('…')).toBe(true);
  });

  it('keeps the header within the platform\'s 150 characters and says "All services" for none', () => {
    const message = renderChannelMessage(update(rawIncident({ title: 'a '.repeat(200), services: [] })), context);
    const header = message.blocks[0];
    expect(header?.type === 'header' && header.text.text.length).toBeLessThanOrEqual(150);
    expect(allText(message).join('\n')).toContain('*Services*\nAll services');
  });

  it('leaves out a vendor link that is not http(s), and never lets a URL close its brackets', () => {
    const message = renderChannelMessage(update(rawIncident({ url: 'javascript:alert(1)' })), { publicUrl: 'https://x.example/a|b>c' });
    const joined = allText(message).join('\n');
    expect(joined).not.toContain('javascript:');
    expect(joined).not.toContain('Vendor status page');
    expect(joined).toContain('<https://x.example/a%7Cb%3Ec/incidents/1579|View the incident>');
  });

  it('escapes only &, < and >', () => {
    expect(escapeMrkdwn(`a & <b> "c" 'd' *e*`)).toBe(`a &amp; &lt;b&gt; "c" 'd' *e*`);
  });
});
