/** Turns what a person typed into a safe, bounded SQLite FTS5 query: words only, all required. */

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * What one search may ask of the full-text index. Whole words (stemmed: `upload` is `uploading`)
 * are read lazily and stop after a page, so they cost little however common; a prefix makes
 * FTS5 merge the postings of every indexed word it starts, before the first row comes out.
 * Measured over 100,000 incidents: `the`* 25 ms, `a`* 64 ms, twelve one-letter prefixes 540 ms,
 * against 0.1 ms for `the` and 1.4 ms for `degraded`*. So only the last word is a prefix (as a
 * search box's type-ahead reads it), and only from three characters on.
 */
export const SEARCH_LIMITS = {
  /** The search form's own maxlength. */
  maxChars: 200,
  maxWords: 8,
  minPrefixChars: 3,
  /**
   * Matches one request walks through, newest first, looking for those that pass the other
   * filters (service, type, status): a common word with a rare filter would otherwise walk the
   * whole archive (52 ms over 100,000 incidents; about 0.5 us per match).
   */
  maxMatchesExamined: 5_000,
  /**
   * Incidents on one page of results: reading and encoding rows is most of a search's cost once
   * the match is bounded (a page of 1,000 costs about 8x one of 100). The spec lets a method
   * answer fewer than `limit` and adjusts larger limits silently.
   */
  maxPageSize: 100,
} as const;

export type FtsQuery =
  | { ok: true; match: string }
  /** `no_words`: nothing to search for; the others break a rule of SEARCH_LIMITS, said in `detail`. */
  | { ok: false; rule: 'no_words' | 'too_long' | 'too_many_words'; detail: string };

/**
 * `files upl` becomes `"files" "upl"*`. Quoting every word means no input can be FTS5 syntax
 * (NEAR, column filters, a stray quote), so no query text can make the database throw. A search
 * beyond the limits is refused with the rule it broke, never cut silently to fit.
 */
export function parseSearch(input: string): FtsQuery {
  const text = input.normalize('NFKC');
  const chars = [...text].length;
  if (chars > SEARCH_LIMITS.maxChars) {
    return { ok: false, rule: 'too_long', detail: `a search is at most ${SEARCH_LIMITS.maxChars} characters; this one has ${chars}` };
  }
  const words = text.match(WORD) ?? [];
  if (words.length === 0) return { ok: false, rule: 'no_words', detail: 'no words to search for' };
  if (words.length > SEARCH_LIMITS.maxWords) {
    return { ok: false, rule: 'too_many_words', detail: `a search has at most ${SEARCH_LIMITS.maxWords} words; this one has ${words.length}` };
  }
  const last = words.length - 1;
  const match = words.map((w, i) => (i === last && [...w].length >= SEARCH_LIMITS.minPrefixChars ? `"${w}"*` : `"${w}"`)).join(' ');
  return { ok: true, match };
}

/** The match text alone, for callers whose input is known to fit (tests, benchmarks); null when refused. */
export function toFtsQuery(input: string): string | null {
  const parsed = parseSearch(input);
  return parsed.ok ? parsed.match : null;
}
