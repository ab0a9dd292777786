/** The demo mail catcher's page: the mails it kept, newest first, filtered by recipient, every value escaped (it shows mail content). */
import { escapeHtml, formatBytes, type Reload, renderCatcherPage } from './catcher-page.ts';

export type CaughtMail = {
  receivedAtMs: number;
  from: string;
  to: readonly string[];
  subject: string;
  /** The plain-text part; the HTML part is not rendered, so no mail can run script on this page. */
  text: string;
};

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

/** Whether `mail` went to an address containing `to` (any case); an empty filter takes every mail. */
export function sentTo(mail: CaughtMail, to: string): boolean {
  const wanted = to.toLowerCase();
  return wanted === '' || mail.to.some((address) => address.toLowerCase().includes(wanted));
}

export function renderMailCatcherPage(
  mails: readonly CaughtMail[],
  view: { to: string; maxMails: number; maxTotalBytes: number; keptBytes: number; reload: Reload },
): string {
  const shown = mails.filter((mail) => sentTo(mail, view.to));
  const items = [...shown]
    .reverse()
    .map(
      (mail) => `<article>
<h2>${escapeHtml(mail.subject || '(no subject)')}</h2>
<dl><dt>From</dt><dd>${escapeHtml(mail.from)}</dd><dt>To</dt><dd>${escapeHtml(mail.to.join(', '))}</dd><dt>Received</dt><dd><time>${new Date(mail.receivedAtMs).toISOString()}</time></dd></dl>
<pre tabindex="0">${linkifyText(mail.text)}</pre>
</article>`,
    )
    .join('\n');
  const empty =
    view.to === ''
      ? '<p>No mail yet. Subscribe on the demo\u2019s <code>/subscribe</code> page: the confirmation mail arrives here.</p>'
      : `<p>No mail kept to an address containing \u201c${escapeHtml(view.to)}\u201d. <a href="/">Show every mail</a>.</p>`;
  const filter = `<form method="get" action="/" role="search"><label>Recipient contains<input type="search" name="to" value="${escapeHtml(view.to)}" maxlength="320" placeholder="name@example.com"></label>${view.reload.on ? '<input type="hidden" name="reload" value="on">' : ''}<button type="submit">Filter</button>${view.to === '' ? '' : ' <a href="/">Show all</a>'}</form>`;
  const counted =
    view.to === '' ? `${mails.length} kept` : `${shown.length} of ${mails.length} kept to addresses containing \u201c${escapeHtml(view.to)}\u201d`;
  const intro = `<p>Every mail the demo's statuswatch sends lands here instead of a real inbox. The last ${view.maxMails.toLocaleString('en-US')} (at most ${formatBytes(view.maxTotalBytes)} in all) are kept, newest first: ${counted}, ${formatBytes(view.keptBytes)}.</p>
${filter}`;
  return renderCatcherPage({
    title: `statuswatch demo: mail catcher (${mails.length})`,
    heading: 'Mail caught by the demo',
    intro,
    body: items || empty,
    reload: view.reload,
  });
}
