/** Turns a note body (plain text in 2019-2023, HTML fragments since) into plain text for search and logs. */
import { decodeHTML } from 'entities';
import type { Note } from './incident.ts';

// Not a sanitiser: the output is text, never HTML. Block-level tags become line breaks so that
// words from adjacent paragraphs do not run together in the full-text index.
// A tag's scan stops at the next `<` as well as at `>`: bodies come from the vendor, and with
// `[^>]*` an unterminated `<a<a<a...` made each `<` scan to the end (quadratic time).
const BLOCK_BREAK = /<\s*(br|\/p|\/ul|\/ol|\/div|\/h[1-6]|\/tr)\b[^<>]*>/gi;
const LIST_ITEM = /<\s*li\b[^<>]*>/gi;
const ANY_TAG = /<\/?[a-z!][^<>]*>/gi;

export function htmlToText(body: string): string {
  if (!body.includes('<') && !body.includes('&')) return normaliseWhitespace(body);
  const withBreaks = body.replace(BLOCK_BREAK, '\n').replace(LIST_ITEM, '\n- ');
  return normaliseWhitespace(decodeHTML(withBreaks.replace(ANY_TAG, '')));
}

function normaliseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A note as the archive reads it back: with the search text stored beside its body. */
export type NoteWithText = Note & { text?: string };

/**
 * A note's search text: its own when it carries one (withSearchTexts found it for this body), else
 * the one stored with the same note as archived (`before`) while its body is the same, else derived
 * from the body. A title edit of an incident with long HTML notes rewrites its search row without
 * converting every note again.
 */
export function noteSearchText(note: NoteWithText, before: NoteWithText | undefined): string {
  if (typeof note.text === 'string') return note.text;
  return before?.body === note.body && typeof before.text === 'string' ? before.text : htmlToText(note.body);
}

/** The notes with their search texts (noteSearchText against the archived copy's): for the write and the copy kept in memory. */
export function withSearchTexts(notes: readonly NoteWithText[], before: readonly NoteWithText[] | undefined): (Note & { text: string })[] {
  const byKey = new Map(before?.map((n) => [n.key, n]));
  return notes.map((note) => ({ ...note, text: noteSearchText(note, byKey.get(note.key)) }));
}
