import { z } from 'zod';

/**
 * Text that UTF-8 can carry. A JSON string may hold a lone surrogate (`"\ud800"`, or a pair cut in
 * two by a length cap), which UTF-8 cannot: each store and encoder then writes it its own way
 * (better-sqlite3 as three bytes that read back as three U+FFFD, TextEncoder as one, an event's
 * JSON as the escape), and one title would read differently on two faces or runtimes. Outside text
 * (the vendor's feeds and pages, the directory's users and groups, the Web API's answers) is made
 * well formed where its schema reads it: a lone surrogate becomes one U+FFFD, everywhere.
 */
export function wellFormed(text: string): string {
  // String.prototype.toWellFormed (ES2024): in Node 20 and workerd, not yet in the ES2023 lib's types.
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * `text` cut to at most `maxUnits` UTF-16 code units, then made well formed (wellFormed). A cut
 * that would fall inside a surrogate pair falls before it: the character the outsider sent is
 * left out whole, not shown as a U+FFFD it never sent. The one way outside text is cut to a cap.
 */
export function wellFormedPrefix(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return wellFormed(text);
  const splitsPair = isHighSurrogate(text.charCodeAt(maxUnits - 1)) && isLowSurrogate(text.charCodeAt(maxUnits));
  return wellFormed(text.slice(0, splitsPair ? maxUnits - 1 : maxUnits));
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Whether `text` holds no lone surrogate. An outside id is a key, not text to show: one that is not
 * well formed is refused rather than repaired, since two ids repaired could become one.
 */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Why an outside id was refused, in the words every schema uses. */
export const NOT_WELL_FORMED_MESSAGE = 'not well-formed text (holds half a surrogate pair)';

/**
 * An outside party's JSON answer read without a schema (a tool's error text, a sent message's id),
 * with every string in it made well formed: the same rule as the schemas, where none reads it.
 */
export function parseWellFormedJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? wellFormed(value) : value));
}

/** The schema of an outside id, token or key: a string, refused when it holds half a surrogate pair. */
export function wellFormedKey() {
  return z.string().refine(isWellFormed, NOT_WELL_FORMED_MESSAGE);
}
