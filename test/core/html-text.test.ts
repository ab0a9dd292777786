import { describe, expect, it } from 'vitest';
import { htmlToText, noteSearchText, withSearchTexts } from '../../src/core/html-text.ts';

describe('htmlToText', () => {
  it('strips the 2026 HTML bodies to text, decoding entities and keeping paragraph breaks', () => {
    const body = '<p>We identified a loop.&nbsp;<br><br>We apologize &amp; will update.</p><p><br></p>';
    expect(htmlToText(body)).toBe('We identified a loop.\n\nWe apologize & will update.');
  });

  it('keeps list items apart and drops odd inline markup (T<strong>he ...)', () => {
    expect(htmlToText('<ul><li><strong>Files</strong></li><li>Search</li></ul>T<strong>he fix</strong>')).toBe('- Files\n- Search\nThe fix');
  });

  it('passes plain 2019 bodies through, normalising CRLF', () => {
    expect(htmlToText('Line one.\r\nLine two.')).toBe('Line one.\nLine two.');
  });

  it('reads unterminated tags as text, so a hostile body cannot make it slow', () => {
    // '<a' never closes: each must stop at the next '<' (npm run bench would show a quadratic scan).
    const body = '<a'.repeat(50_000) + '<p>end</p>';
    expect(htmlToText(body)).toBe('<a'.repeat(50_000) + 'end');
  });

  it('never yields markup, even from hostile input', () => {
    const text = htmlToText('<img src=x onerror=alert(1)><script>alert(1)</script><a href="javascript:x">link</a>');
    expect(text).not.toMatch(/<|>/);
    expect(text).toContain('link');
  });
});

describe('noteSearchText', () => {
  const note = { key: 'k1', dateCreated: { raw: '2026-01-01T00:00:00Z', ms: 1_767_225_600_000 }, body: '<p>We are <b>investigating</b>.</p>' };

  it('keeps the text stored with the archived note while the body is the same', () => {
    expect(noteSearchText(note, { ...note, text: 'stored text' })).toBe('stored text');
    expect(withSearchTexts([note], [{ ...note, text: 'stored text' }])).toEqual([{ ...note, text: 'stored text' }]);
  });

  it('derives the text again from a body that changed, or without a stored text', () => {
    expect(noteSearchText(note, { ...note, body: '<p>Old</p>', text: 'Old' })).toBe('We are investigating.');
    expect(noteSearchText(note, { ...note })).toBe('We are investigating.');
    expect(noteSearchText(note, undefined)).toBe('We are investigating.');
    expect(withSearchTexts([note], undefined)).toEqual([{ ...note, text: 'We are investigating.' }]);
  });
});
