/** Outside text cut to a cap and made well formed, by the one rule every reader of it uses. */
import { describe, expect, it } from 'vitest';
import { wellFormedPrefix } from '../../src/core/well-formed-text.ts';

const fire = '\u{1F525}'; // two UTF-16 code units

describe('wellFormedPrefix', () => {
  it('keeps text within the cap as it is, a lone surrogate made one U+FFFD', () => {
    expect(wellFormedPrefix(`ok ${fire}`, 5)).toBe(`ok ${fire}`);
    expect(wellFormedPrefix('a\ud800b', 10)).toBe('a\ufffdb');
  });

  it('cuts before a pair the cap would split, and through a pair it does not', () => {
    expect(wellFormedPrefix(`abc${fire}d`, 4)).toBe('abc');
    expect(wellFormedPrefix(`abc${fire}d`, 5)).toBe(`abc${fire}`);
    expect(wellFormedPrefix(`${fire}${fire}`, 1)).toBe('');
  });

  it('makes a lone high surrogate at the cut one U+FFFD: the outsider sent it alone', () => {
    expect(wellFormedPrefix('abc\ud800d', 4)).toBe('abc\ufffd');
    expect(wellFormedPrefix('abc\udc00d', 4)).toBe('abc\ufffd');
  });
});
