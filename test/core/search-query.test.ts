import { describe, expect, it } from 'vitest';
import { parseSearch, SEARCH_LIMITS, toFtsQuery } from '../../src/core/search-query.ts';

describe('toFtsQuery', () => {
  it('quotes each word; the last one is also a prefix', () => {
    expect(toFtsQuery('files upl')).toBe('"files" "upl"*');
  });

  it('turns FTS5 syntax into plain words', () => {
    expect(toFtsQuery('title:files NEAR("a" b) OR -x *')).toBe('"title" "files" "NEAR" "a" "b" "OR" "x"');
  });

  it('returns null when nothing is searchable', () => {
    expect(toFtsQuery(' "*-(): ')).toBeNull();
  });

  it('keeps non-Latin words', () => {
    expect(toFtsQuery('Files инцидент')).toBe('"Files" "инцидент"*');
  });
});

describe('parseSearch bounds', () => {
  it('makes no prefix of a last word shorter than three characters: a one-letter prefix merges every word it starts', () => {
    expect(parseSearch('files up')).toEqual({ ok: true, match: '"files" "up"' });
    expect(parseSearch('a')).toEqual({ ok: true, match: '"a"' });
    // Counted in characters, not UTF-16 units or bytes.
    expect(parseSearch('𝒜𝒷𝒸')).toEqual({ ok: true, match: '"Abc"*' });
    expect(parseSearch('日本')).toEqual({ ok: true, match: '"日本"' });
  });

  it('turns the known attack, twelve one-letter prefixes, into a refusal that names the rule', () => {
    const attack = parseSearch('a e i o u s t r n l c d');
    expect(attack).toEqual({ ok: false, rule: 'too_many_words', detail: 'a search has at most 8 words; this one has 12' });
  });

  it('takes exactly the most words allowed, with no prefix but the last', () => {
    const words = Array.from({ length: SEARCH_LIMITS.maxWords }, (_, i) => `w${i}x`);
    const parsed = parseSearch(words.join(' '));
    expect(parsed).toEqual({
      ok: true,
      match: `${words
        .slice(0, -1)
        .map((w) => `"${w}"`)
        .join(' ')} "${words.at(-1)}"*`,
    });
    expect(parseSearch([...words, 'one'].join(' '))).toMatchObject({ ok: false, rule: 'too_many_words' });
  });

  it('refuses a search longer than the form allows, counted in characters', () => {
    expect(parseSearch('é'.repeat(200))).toMatchObject({ ok: true });
    expect(parseSearch('a'.repeat(201))).toEqual({ ok: false, rule: 'too_long', detail: 'a search is at most 200 characters; this one has 201' });
    expect(parseSearch('a '.repeat(2500))).toMatchObject({ ok: false, rule: 'too_long' });
  });

  it('says there is nothing to search for', () => {
    expect(parseSearch('*** ---')).toMatchObject({ ok: false, rule: 'no_words' });
  });
});
