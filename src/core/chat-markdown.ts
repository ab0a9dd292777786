/**
 * Vendor text made inert in the Markdown that Teams' Adaptive Cards and Discord render: every
 * character that could start emphasis, a link, a heading, a list or a quote is backslash-escaped,
 * so a title such as `[click](https://evil)` shows as written and cannot become a link.
 */
import { truncate } from './notification-message.ts';

/**
 * Characters that format wherever they stand: emphasis, code, strikethrough, spoilers, a link's
 * brackets (a link needs `[text](url)`: with the brackets escaped, parentheses are plain), and
 * Discord's `<@mention>` and `<url>` forms.
 */
const INLINE_SPECIALS = /[\\`*_~|[\]<>]/g;
/** What formats only at a line's start: a heading, a quote, a list item ("-", "+", "1."). */
const LINE_START_SPECIALS = /^(\s*)([#>+-]|\d+\.)/gm;

export function escapeChatMarkdown(text: string): string {
  return text
    .replace(INLINE_SPECIALS, (c) => `\\${c}`)
    .replace(LINE_START_SPECIALS, (_all, space: string, mark: string) =>
      // "1." is escaped at its dot: a backslash before a digit is no escape and would show.
      mark.endsWith('.') ? `${space}${mark.slice(0, -1)}\\.` : `${space}\\${mark}`,
    );
}

/**
 * `text` escaped, then cut to `maxChars` as sent (the platforms count what they receive, and
 * escaping can double the length): a cut never leaves a lone backslash before the ellipsis.
 */
export function escapedMarkdownWithin(text: string, maxChars: number): string {
  const escaped = escapeChatMarkdown(text);
  const cut = truncate(escaped, maxChars);
  return cut === escaped ? escaped : cut.replace(/(?<!\\)((?:\\\\)*)\\…$/, '$1…');
}
