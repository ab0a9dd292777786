/** The readable text of Block Kit blocks (header, section, context, rich text), so the channel page shows what a reader sees. */

export type BlockLine = { kind: 'header' | 'section' | 'context' | 'other'; text: string };

/**
 * A text object as a reader sees it: web links (`<https://…|label>`) show their label, and `&amp;`, `&lt;`,
 * `&gt;` their character, as the vendor's clients decode them in every text (the page's JSX
 * escapes the result again). `&amp;` is decoded last, so `&amp;lt;` stays the text `&lt;`.
 */
function readableText(text: string): string {
  return text
    .replace(/<(https?:\/\/[^<>|\s]+)\|([^<>]*)>/g, '$2')
    .replace(/<(https?:\/\/[^<>|\s]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * A mrkdwn text split where the vendor's clients show bold: `*word*`, the asterisks against
 * non-space characters, within one line. The rest stays as it is.
 */
export function boldSpans(text: string): { text: string; bold: boolean }[] {
  const spans: { text: string; bold: boolean }[] = [];
  let last = 0;
  for (const match of text.matchAll(/\*(\S(?:[^*\n]*\S)?)\*/g)) {
    if (match.index > last) spans.push({ text: text.slice(last, match.index), bold: false });
    spans.push({ text: match[1]!, bold: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ text: text.slice(last), bold: false });
  return spans;
}

const textOf = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null) return null;
  const text = (value as { text?: unknown }).text;
  return typeof text === 'string' ? readableText(text) : null;
};

/** One line per block; a block the page does not know is named by its type, never dropped silently. */
export function blockLines(blocks: readonly unknown[]): BlockLine[] {
  return blocks.map((block): BlockLine => {
    const record = (typeof block === 'object' && block !== null ? block : {}) as Record<string, unknown>;
    const type = typeof record.type === 'string' ? record.type : 'unknown';
    switch (type) {
      case 'header':
        return { kind: 'header', text: textOf(record.text) ?? '' };
      case 'section': {
        const fields = Array.isArray(record.fields) ? record.fields.map(textOf).filter((t) => t !== null) : [];
        return { kind: 'section', text: [textOf(record.text), ...fields].filter((t) => t !== null).join('\n') };
      }
      case 'context': {
        const elements = Array.isArray(record.elements) ? record.elements.map(textOf).filter((t) => t !== null) : [];
        return { kind: 'context', text: elements.join('  ') };
      }
      case 'divider':
        return { kind: 'other', text: '\u2014' };
      default:
        return { kind: 'other', text: `[${type} block]` };
    }
  });
}
