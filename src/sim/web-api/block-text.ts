/** The readable text of Block Kit blocks (header, section, context, rich text), so the channel page shows what a reader sees. */
import { DATE_TOKEN, type DateToken } from './date-token.ts';

/** Readable text, or a date token the page shows in the reader's zone. */
export type LinePart = string | DateToken;

/** `text`: the line as plain text, a date as its fallback; `parts`: the same with its dates kept apart. */
export type BlockLine = { kind: 'header' | 'section' | 'context' | 'other'; text: string; parts: LinePart[] };

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

/**
 * A mrkdwn text's parts: date tokens split out before anything is decoded, so text that arrived
 * escaped (`&lt;!date^…&gt;`) stays text, as in the vendor's clients.
 */
function mrkdwnParts(text: string): LinePart[] {
  const parts: LinePart[] = [];
  let last = 0;
  for (const match of text.matchAll(DATE_TOKEN)) {
    if (match.index > last) parts.push(readableText(text.slice(last, match.index)));
    parts.push({ epochSeconds: Number(match[1]), format: match[2]!, fallback: readableText(match[3]!) });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(readableText(text.slice(last)));
  return parts;
}

const partsOf = (value: unknown): LinePart[] | null => {
  if (typeof value !== 'object' || value === null) return null;
  const { text, type } = value as { text?: unknown; type?: unknown };
  if (typeof text !== 'string') return null;
  // plain_text is shown as written: tokens are mrkdwn's.
  return type === 'mrkdwn' ? mrkdwnParts(text) : [readableText(text)];
};

const joinParts = (lists: readonly LinePart[][], separator: string): LinePart[] => lists.flatMap((list, i) => (i === 0 ? list : [separator, ...list]));

const plainText = (parts: readonly LinePart[]): string => parts.map((part) => (typeof part === 'string' ? part : part.fallback)).join('');

const line = (kind: BlockLine['kind'], parts: LinePart[]): BlockLine => ({ kind, text: plainText(parts), parts });

/** One line per block; a block the page does not know is named by its type, never dropped silently. */
export function blockLines(blocks: readonly unknown[]): BlockLine[] {
  return blocks.map((block): BlockLine => {
    const record = (typeof block === 'object' && block !== null ? block : {}) as Record<string, unknown>;
    const type = typeof record.type === 'string' ? record.type : 'unknown';
    switch (type) {
      case 'header':
        return line('header', [plainText(partsOf(record.text) ?? [])]);
      case 'section': {
        const fields = Array.isArray(record.fields) ? record.fields.map(partsOf) : [];
        return line(
          'section',
          joinParts(
            [partsOf(record.text), ...fields].filter((p) => p !== null),
            '\n',
          ),
        );
      }
      case 'context': {
        const elements = Array.isArray(record.elements) ? record.elements.map(partsOf).filter((p) => p !== null) : [];
        return line('context', joinParts(elements, '  '));
      }
      case 'divider':
        return line('other', ['\u2014']);
      default:
        return line('other', [`[${type} block]`]);
    }
  });
}
