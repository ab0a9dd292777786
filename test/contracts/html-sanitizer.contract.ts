/**
 * The note sanitiser's cases, as a function of the sanitiser under test: registered on Node
 * (test/adapters/html-sanitizer.test.ts) and inside workerd (test/workers/html-sanitizer.test.ts),
 * so a note renders the same in an email whichever runtime sends it. Imports only vitest.
 */
import { describe, expect, it } from 'vitest';

export type SanitizeNoteHtml = (html: string) => string;

const LINK_ATTRS = 'rel="noopener noreferrer nofollow" target="_blank"';

export function htmlSanitizerContract(runtime: string, sanitizeNoteHtml: SanitizeNoteHtml): void {
  describe(`sanitizeNoteHtml (${runtime})`, () => {
    it.each([
      ['a script, with its contents', '<script>alert(1)</script>ok', 'ok'],
      ['an image with an event handler', '<img src=x onerror=alert(1)>after', 'after'],
      ['svg with onload, contents too', '<svg onload=alert(1)><circle/>inside</svg>after', 'after'],
      ['an iframe', '<iframe src="https://evil.example">in</iframe>after', 'after'],
      ['a style element', '<style>p{background:url(javascript:alert(1))}</style>after', 'after'],
      ['a style attribute', '<p style="background:url(javascript:alert(1))">p</p>', '<p>p</p>'],
      ['an event handler on an allowed tag', '<p onclick="alert(1)" class="x" id="y">p</p>', '<p>p</p>'],
      ['a forged tag split around a script', '<scr<script>ipt>alert(1)</script>', 'ipt&gt;alert(1)'],
      ['mathml confusion', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
      ['a form', '<form action="https://evil.example"><input name=a><button>Go</button></form>', 'Go'],
    ])('drops %s', (_name, input, expected) => {
      expect(sanitizeNoteHtml(input)).toBe(expected);
    });

    it.each([
      ['javascript:', '<a href="javascript:alert(1)">x</a>'],
      ['mixed-case JaVaScRiPt:', '<a href="JaVaScRiPt:alert(1)">x</a>'],
      ['entity-encoded &#106;avascript:', '<a href="&#106;avascript:alert(1)">x</a>'],
      ['hex-encoded &#x6A;avascript:', '<a href="&#x6A;avascript:alert(1)">x</a>'],
      ['javascript: split by a newline and a tab', '<a href=" java\nscr\tipt:alert(1)">x</a>'],
      ['data:', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'],
      ['vbscript:', '<a href="vbscript:msgbox(1)">x</a>'],
      ['a protocol-relative URL', '<a href="//evil.example/">x</a>'],
    ])('takes the href off a link with %s', (_name, input) => {
      expect(sanitizeNoteHtml(input)).toBe(`<a ${LINK_ATTRS}>x</a>`);
    });

    it('keeps http, https and mailto links, with our rel and target whatever the vendor wrote', () => {
      expect(sanitizeNoteHtml('<a href="https://slack.com/help?a=1&amp;b=2" target="_self" rel="opener" title="t">h</a>')).toBe(
        `<a href="https://slack.com/help?a=1&amp;b=2" ${LINK_ATTRS}>h</a>`,
      );
      expect(sanitizeNoteHtml('<a href="http://x.example">h</a>')).toBe(`<a href="http://x.example" ${LINK_ATTRS}>h</a>`);
      expect(sanitizeNoteHtml('<a href="mailto:feedback@slack.com">m</a>')).toBe(`<a href="mailto:feedback@slack.com" ${LINK_ATTRS}>m</a>`);
    });

    it('keeps the markup the vendor writes (p, br, &nbsp;, strong, ul/li, a link with a styled span)', () => {
      expect(sanitizeNoteHtml('<p>We are aware of message failures.&nbsp;<br><br>More soon.</p><p><br></p><p>Then this.</p>')).toBe(
        '<p>We are aware of message failures.\u00a0<br /><br />More soon.</p><p><br /></p><p>Then this.</p>',
      );
      expect(sanitizeNoteHtml('<ul><li><strong>Messaging</strong>: fixed &amp; verified</li><li>T<strong>he</strong> rest</li></ul>')).toBe(
        '<ul><li><strong>Messaging</strong>: fixed &amp; verified</li><li>T<strong>he</strong> rest</li></ul>',
      );
      expect(sanitizeNoteHtml('<p>See <a href="https://slack-status.com"><span style="text-decoration: underline;">status</span></a>.</p>')).toBe(
        `<p>See <a href="https://slack-status.com" ${LINK_ATTRS}><span>status</span></a>.</p>`,
      );
      expect(sanitizeNoteHtml('<em>e</em><i>i</i><b>b</b><u>u</u><ol><li>1</li></ol>')).toBe('<em>e</em><i>i</i><b>b</b><u>u</u><ol><li>1</li></ol>');
    });

    it('drops empty paragraphs that open or close a note, so no blank line hangs under its last words', () => {
      expect(sanitizeNoteHtml('<p>We have found the cause.</p><p><br></p>')).toBe('<p>We have found the cause.</p>');
      expect(sanitizeNoteHtml('<p><br></p><p>Fixed.</p><p>&nbsp;</p>\n<p> <br> <br/></p>\n')).toBe('<p>Fixed.</p>');
      // A blank line between paragraphs is the vendor's choice, and stays; so do words in a paragraph that also breaks.
      expect(sanitizeNoteHtml('<p>One.</p><p><br></p><p>Two.<br></p>')).toBe('<p>One.</p><p><br /></p><p>Two.<br /></p>');
      expect(sanitizeNoteHtml('<p><br></p>')).toBe('');
    });

    it('turns other blocks into paragraphs, so their words do not run together', () => {
      expect(sanitizeNoteHtml('<div>one</div><h2>two</h2>')).toBe('<p>one</p><p>two</p>');
    });
  });
}
