/** Cleans a vendor note body (an HTML fragment since 2026) for the HTML part of an email, with sanitize-html. */
import sanitizeHtml from 'sanitize-html';

// The tags the vendor writes (p, br, strong, ul/li, links with a styled span), and
// nothing that can run, load or hide anything: no img, no style attributes, no forms.
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'b', 'em', 'i', 'u', 'ul', 'ol', 'li', 'a', 'span'],
  allowedAttributes: { a: ['href', 'rel', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ['href'],
  // "//evil.example" would take the scheme of wherever the mail is viewed.
  allowProtocolRelative: false,
  // Disallowed tags go, their text stays; script, style and the like go with their contents.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'iframe', 'object', 'svg', 'math', 'template'],
  transformTags: {
    // Blocks the list does not allow keep their line: "<div>a</div><div>b</div>" is not "ab".
    ...Object.fromEntries(['div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote'].map((tag) => [tag, 'p'])),
    a: (tagName, attribs) => ({
      tagName,
      // Our own rel and target, whatever the vendor wrote.
      attribs: {
        ...(attribs.href !== undefined ? { href: attribs.href } : {}),
        rel: 'noopener noreferrer nofollow',
        target: '_blank',
      },
    }),
  },
};

/**
 * A paragraph with nothing to read: only spaces, no-break spaces and line breaks, as sanitize-html
 * writes it (`<p>` has no attributes here, `<br>` is `<br />`).
 */
const BLANK_PARAGRAPH = /^<p>(?:[\s\u00a0]|<br \/>)*<\/p>$/;

/**
 * Drops blank paragraphs that open or close a note: the vendor's editor often ends a note with
 * `<p><br></p>`, which drew a blank line under its last words. Blank lines between paragraphs stay.
 * Paragraph by paragraph from each end, so a body of many blank paragraphs costs linear time.
 */
function trimBlankParagraphs(html: string): string {
  let start = 0;
  let end = html.length;
  for (;;) {
    while (start < end && /\s/.test(html[start]!)) start++;
    const close = html.startsWith('<p>', start) ? html.indexOf('</p>', start) : -1;
    if (close < 0 || close + 4 > end || !BLANK_PARAGRAPH.test(html.slice(start, close + 4))) break;
    start = close + 4;
  }
  for (;;) {
    while (end > start && /\s/.test(html[end - 1]!)) end--;
    const open = html.endsWith('</p>', end) ? html.lastIndexOf('<p>', end - 4) : -1;
    if (open < start || !BLANK_PARAGRAPH.test(html.slice(open, end))) break;
    end = open;
  }
  return start === 0 && end === html.length ? html : html.slice(start, end);
}

export function sanitizeNoteHtml(html: string): string {
  return trimBlankParagraphs(sanitizeHtml(html, OPTIONS));
}
