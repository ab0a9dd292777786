import { describe, expect, it } from 'vitest';
import { planPoll, type ArchivedIncident } from '../../src/core/diff.ts';
import { renderEmail, timeFormatter, type EmailContext } from '../../src/core/email-render.ts';
import { groupForMessages, type IncidentUpdate } from '../../src/core/notification-message.ts';
import { sanitizeNoteHtml } from '../../src/adapters/html-sanitizer.ts';
import { filesIncidentResolved, one, rawIncident, type RawIncident } from '../fixtures/vendor-builders.ts';

function update(after: RawIncident, before?: RawIncident): IncidentUpdate {
  const archived = new Map<string, ArchivedIncident>();
  if (before) archived.set(String(before.id), { ...one(before), revision: 1, resolvedAt: null });
  const { events } = planPoll({ observed: [one(after)], archived, now: Date.UTC(2026, 9, 1, 15), backfill: false });
  return groupForMessages(events)[0]!;
}

const context: EmailContext = {
  publicUrl: 'https://status.example.org/',
  timeZone: 'America/Los_Angeles',
  unsubscribeUrl: 'https://status.example.org/unsubscribe?t=abc&s=1',
  manageUrl: 'https://status.example.org/subscriptions/manage?t=abc',
  sanitizeHtml: sanitizeNoteHtml,
};

const { active, resolved } = filesIncidentResolved(
  '<p>T<strong>he</strong> fix is out.&nbsp;<br><br>See <a href="https://slack.com/help"><span style="text-decoration: underline;">help</span></a> &amp; more.</p><ul><li><strong>Uploads</strong> work</li></ul><p><br></p>',
);

describe('renderEmail', () => {
  const email = renderEmail(update(resolved, active), context);

  it('has a subject that says what happened', () => {
    expect(email.subject).toBe('[Resolved] Files: Some files fail to upload');
  });

  it('carries the one-click unsubscribe headers of RFC 8058', () => {
    expect(email.headers).toMatchObject({
      'List-Unsubscribe': '<https://status.example.org/unsubscribe?t=abc&s=1>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });

  it("writes the text part with the note as text and times in the subscriber's zone", () => {
    expect(email.text).toContain('Status: Resolved (was Active)\nServices: Files');
    expect(email.text).toContain('Started: 1 Oct 2026, 05:39 PDT');
    expect(email.text).toContain('Latest note, 1 Oct 2026, 07:10 PDT:\nThe fix is out.\n\nSee help & more.\n\n- Uploads work');
    expect(email.text).not.toMatch(/<\/?(p|strong|span|a)\b|&nbsp;|&amp;/);
    expect(email.text).toContain('Details: https://status.example.org/incidents/1580');
    expect(email.text).toContain('Vendor status page: https://slack-status.com/2026-10/6c28dfb7b670dc02');
    expect(email.text).toContain('Change what you receive: https://status.example.org/subscriptions/manage?t=abc');
    expect(email.text).toContain('Unsubscribe: https://status.example.org/unsubscribe?t=abc&s=1');
  });

  it('writes the HTML part with the note sanitised and links to both pages and the footer', () => {
    expect(email.html).toContain('<strong>Uploads</strong> work');
    expect(email.html).toContain('<a href="https://slack.com/help" rel="noopener noreferrer nofollow" target="_blank"><span>help</span></a>');
    expect(email.html).not.toContain('style="text-decoration');
    expect(email.html).toContain('<a href="https://status.example.org/incidents/1580">');
    expect(email.html).toContain('<a href="https://slack-status.com/2026-10/6c28dfb7b670dc02">');
    expect(email.html).toContain('href="https://status.example.org/unsubscribe?t=abc&amp;s=1"');
    expect(email.html).toContain('href="https://status.example.org/subscriptions/manage?t=abc"');
    expect(email.html).toContain('1 Oct 2026, 07:10 PDT');
  });

  it('escapes every vendor string in the HTML part and passes only the note to the sanitiser', () => {
    const hostile = rawIncident({
      title: 'Calls & <img src=x onerror=alert(1)>',
      services: ['<b>Files</b>'],
      url: 'javascript:alert(1)',
      notes: [{ body: '<script>alert(1)</script><p>fine</p>', date_created: '2026-10-01T05:39:35-07:00' }],
    });
    const seen: string[] = [];
    const html = renderEmail(update(hostile), {
      ...context,
      sanitizeHtml: (body) => {
        seen.push(body);
        return '[sanitised]';
      },
    }).html;
    expect(seen).toEqual(['<script>alert(1)</script><p>fine</p>']);
    expect(html).toContain('[sanitised]');
    expect(html).toContain('Calls &amp; &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;b&gt;Files&lt;/b&gt;');
    expect(html).not.toMatch(/<img|<script|<b>|javascript:/);
  });

  it('keeps the lines of a 2019-style plain-text note in the HTML part', () => {
    const old = rawIncident({ notes: [{ body: 'Line one\r\nLine <two> & three', date_created: '2019-08-01T10:00:00-07:00' }] });
    const rendered = renderEmail(update(old), context);
    expect(rendered.html).toContain('Line one<br />Line &lt;two&gt; &amp; three');
    expect(rendered.text).toContain('Line one\nLine <two> & three');
  });

  it("shows clock times in the subscriber's zone", () => {
    const tokyo = renderEmail(update(resolved, active), { ...context, timeZone: 'Asia/Tokyo' });
    expect(tokyo.text).toContain('Started: 1 Oct 2026, 21:39 GMT+9');
    expect(tokyo.text).toContain('Latest note, 1 Oct 2026, 23:10 GMT+9');
  });

  it('falls back to UTC for a zone it does not know', () => {
    const rendered = renderEmail(update(resolved, active), { ...context, timeZone: 'Mars/Olympus_Mons' });
    expect(rendered.text).toContain('Started: 1 Oct 2026, 12:39 UTC');
    expect(timeFormatter('Europe/London')(Date.UTC(2026, 0, 15, 9, 5))).toBe('15 Jan 2026, 09:05 GMT');
  });

  it('keeps CR/LF out of the headers', () => {
    const rendered = renderEmail(update(rawIncident({ title: 'a\r\nBcc: x@example.com' })), {
      ...context,
      unsubscribeUrl: 'https://status.example.org/u?t=1\r\nBcc: x@example.com',
    });
    for (const value of [rendered.subject, ...Object.values(rendered.headers)]) expect(value).not.toMatch(/[\r\n]/);
  });

  it('omits the vendor link when the vendor url is not http(s), and the note section when there is none', () => {
    const bare = rawIncident({ url: 'javascript:alert(1)', notes: [] });
    const rendered = renderEmail(update(bare), context);
    expect(rendered.text).not.toContain('Vendor status page');
    expect(rendered.text).not.toContain('Latest note');
    expect(rendered.html).not.toContain('javascript:');
  });
});
