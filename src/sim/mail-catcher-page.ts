/** The demo mail catcher's page: the mails it kept, newest first, every value escaped (it shows mail content). */

export type CaughtMail = {
  receivedAtMs: number;
  from: string;
  to: readonly string[];
  subject: string;
  /** The plain-text part; the HTML part is not rendered, so no mail can run script on this page. */
  text: string;
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

// http(s) only: a mail cannot turn `javascript:` text into a link.
const LINK = /https?:\/\/[^\s<>"']+/g;

/** Text with its http(s) URLs as links; everything else, and the URLs themselves, escaped. */
export function linkifyText(text: string): string {
  let html = '';
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    const url = match[0].replace(/[.,;:!?)\]]+$/, ''); // trailing punctuation ends a sentence, not the URL
    html += escapeHtml(text.slice(last, match.index));
    html += `<a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(url)}</a>`;
    last = match.index + url.length;
  }
  return html + escapeHtml(text.slice(last));
}

export function renderMailCatcherPage(mails: readonly CaughtMail[], maxMails: number): string {
  const items = [...mails]
    .reverse()
    .map(
      (mail) => `<article>
<h2>${escapeHtml(mail.subject || '(no subject)')}</h2>
<dl><dt>From</dt><dd>${escapeHtml(mail.from)}</dd><dt>To</dt><dd>${escapeHtml(mail.to.join(', '))}</dd><dt>Received</dt><dd><time>${new Date(mail.receivedAtMs).toISOString()}</time></dd></dl>
<pre>${linkifyText(mail.text)}</pre>
</article>`,
    )
    .join('\n');
  const empty = '<p>No mail yet. Subscribe on the demo\u2019s <code>/subscribe</code> page: the confirmation mail arrives here.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>statuswatch demo: mail catcher (${mails.length})</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}article{border-top:1px solid #ccc;padding:.5rem 0}dl{display:grid;grid-template-columns:6rem 1fr;margin:0}dt{color:#666}dd{margin:0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem}</style>
</head><body>
<h1>Mail caught by the demo</h1>
<p>Every mail the demo's statuswatch sends lands here instead of a real inbox; the last ${maxMails} are kept, newest first. This page reloads every 5 seconds.</p>
${items || empty}
</body></html>
`;
}
