/** Turns what a person typed into a safe SQLite FTS5 query: words only, each a prefix, all required. */

const WORD = /[\p{L}\p{N}]+/gu;
const MAX_WORDS = 12;

/**
 * `files upload` becomes `"files"* "upload"*`. Quoting every word means no input can be FTS5
 * syntax (NEAR, column filters, a stray quote), so no query text can make the database throw.
 * Returns null when there is no word to search for.
 */
export function toFtsQuery(input: string): string | null {
  const words = input.normalize('NFKC').match(WORD)?.slice(0, MAX_WORDS) ?? [];
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' ');
}
