/** Cleans a vendor note body (an HTML fragment since 2026) for the HTML part of an email, with sanitize-html. */
import sanitizeHtml from 'sanitize-html';

// The tags the vendor writes (FACTS.md: p, br, strong, ul/li, links with a styled span), and
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

export function sanitizeNoteHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
