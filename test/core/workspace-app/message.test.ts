import { describe, expect, it } from 'vitest';
import {
  isReplyOf,
  isRootOf,
  nextRootView,
  renderAppReply,
  renderAppRoot,
  replyMetadata,
  REPLY_NOTE_MAX_CHARS,
  ROOT_NOTE_MAX_CHARS,
  rootMetadata,
} from '../../../src/core/workspace-app/message.ts';
import { BLOCKS_PER_MESSAGE_MAX, MESSAGE_TEXT_MAX_CHARS } from '../../../src/sim/web-api/channels.ts';
import { allText, incidentUpdate } from '../../fixtures/message-fixtures.ts';
import { rawIncident } from '../../fixtures/vendor-builders.ts';

const update = incidentUpdate;

const context = { publicUrl: 'https://status.example.org' };
const HOSTILE = '<!channel> & <https://evil.example|click> *bold*';
const active = rawIncident({ id: 1580, title: `Uploads fail ${HOSTILE}`, services: ['Files', `Canvases ${HOSTILE}`] });
const resolved = rawIncident({
  ...active,
  status: 'resolved',
  date_updated: '2026-10-01T07:10:00-07:00',
  notes: [
    ...active.notes,
    {
      body: `<p>Uploads work again. ${HOSTILE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`,
      date_created: '2026-10-01T07:10:00-07:00',
    },
  ],
});

describe('the app’s root message', () => {
  it('shows the incident as it stands: status and title, services, the latest note, our link', () => {
    const root = renderAppRoot(nextRootView(null, update(resolved, active)), context);
    expect(root.blocks[0]).toMatchObject({ type: 'header' });
    const text = allText(root).join('\n');
    expect(text).toContain('Resolved: Uploads fail');
    expect(text).toContain('Uploads work again.');
    expect(text).toContain('<https://status.example.org/incidents/1580|View the incident>');
    expect(root.text).toMatch(/^Resolved: Uploads fail/);
  });

  it('shows when it was updated as the vendor’s date token, so each reader sees their own zone, with a UTC fallback', () => {
    // 21:52:11 at -08:00 is 05:52:11 UTC the next day: epoch 1795758731.
    const late = rawIncident({ ...active, date_updated: '2026-11-26T21:52:11-08:00' });
    const root = renderAppRoot(nextRootView(null, update(late)), context);
    expect(root.blocks.at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: 'Updated <!date^1795758731^{date_short_pretty} at {time}|2026-11-27 05:52 UTC>', verbatim: true }],
    });
    expect(allText(root).join('\n')).not.toContain('-08:00');
  });

  it('keeps the note it showed when an update brings none', () => {
    const edited = rawIncident({ ...active, title: 'Uploads fail for some', date_updated: '2026-10-01T07:00:00-07:00' });
    const shown = nextRootView(null, update(active));
    const after = nextRootView(shown, update(edited, active));
    expect(after.note).toEqual(shown.note);
    expect(allText(renderAppRoot(after, context)).join('\n')).toContain('A third-party app is stuck in a loop.');
  });

  it('escapes the vendor’s text, so it can neither mention everyone nor make a link', () => {
    for (const message of [renderAppRoot(nextRootView(null, update(resolved, active)), context), renderAppReply(update(resolved, active))]) {
      const vendorText = allText(message).filter((t) => t.includes('Uploads') || t.includes('Canvases'));
      expect(vendorText.length).toBeGreaterThan(0);
      for (const text of vendorText) {
        expect(text).not.toContain('<!channel>');
        expect(text).not.toContain('<https://evil.example');
      }
      expect(allText(message).join('\n')).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    }
  });

  it.each([
    ['plain', 'x'],
    // Escaping makes these five and four times as long: limits hold for the text as sent.
    ['made of the characters escaping lengthens', '&<'],
  ])('stays within the vendor’s limits however long the vendor’s text: %s', (_, unit) => {
    const long = unit.repeat(50_000 / unit.length);
    const huge = rawIncident({
      ...resolved,
      title: long,
      services: Array.from({ length: 40 }, (_, i) => `${long.slice(0, 500)}${i}`),
      notes: [{ body: long, date_created: '2026-10-01T07:10:00-07:00' }],
    });
    const rootMessage = renderAppRoot(nextRootView(null, update(huge, active)), context);
    for (const message of [rootMessage, renderAppReply(update(huge, active))]) {
      expect(message.blocks.length).toBeLessThanOrEqual(BLOCKS_PER_MESSAGE_MAX);
      expect(message.text.length).toBeLessThanOrEqual(MESSAGE_TEXT_MAX_CHARS);
      for (const text of allText(message)) expect(text.length).toBeLessThanOrEqual(3_000);
    }
    // The root keeps its header (a reply has none), cut to the vendor's 150 characters.
    const header = rootMessage.blocks[0];
    expect(header?.type).toBe('header');
    expect(header?.type === 'header' && header.text.text.length).toBeLessThanOrEqual(150);
    const root = allText(renderAppRoot(nextRootView(null, update(huge, active)), context)).join('');
    expect(root.length).toBeLessThan(ROOT_NOTE_MAX_CHARS + 2 * 1_000 + 1_000);
    expect(allText(renderAppReply(update(huge, active))).join('').length).toBeLessThan(REPLY_NOTE_MAX_CHARS + 2 * 1_000);
    // No entity is cut in half at a limit.
    for (const text of allText(renderAppReply(update(huge, active)))) expect(text).not.toMatch(/&[a-z]{0,3}…/);
  });
});

describe('the app’s thread reply', () => {
  it('says what one poll changed: the status, the note, an edit', () => {
    const reply = allText(renderAppReply(update(resolved, active))).join('\n');
    expect(reply).toContain('Status: Resolved (was Active).');
    expect(reply).toContain('Uploads work again.');
    const renamed = rawIncident({ ...active, title: 'Uploads fail for some', date_updated: '2026-10-01T07:00:00-07:00' });
    expect(allText(renderAppReply(update(renamed, active))).join('\n')).toContain('Title changed from');
  });
});

describe('message metadata', () => {
  it('names the incident on a root and the delivery on a reply, and recognises only its own', () => {
    expect(isRootOf(rootMetadata('1580'), '1580')).toBe(true);
    expect(isRootOf(rootMetadata('1580'), '1581')).toBe(false);
    expect(isRootOf(replyMetadata('1580', 'k'), '1580')).toBe(false);
    expect(isReplyOf(replyMetadata('1580', 'k1'), 'k1')).toBe(true);
    expect(isReplyOf(replyMetadata('1580', 'k1'), 'k2')).toBe(false);
    expect(isReplyOf(null, 'k1')).toBe(false);
  });
});
