/** Counts in words, as every page and message writes them. */
import { describe, expect, it } from 'vitest';
import { plural } from '../../src/core/plural.ts';

describe('plural', () => {
  it('says "1 incident" and "10 members", never "1 incidents" or "member(s)"', () => {
    expect(plural(1, 'incident')).toBe('1 incident');
    expect(plural(0, 'incident')).toBe('0 incidents');
    expect(plural(10, 'member')).toBe('10 members');
    expect(plural(2, 'delivery', 'deliveries')).toBe('2 deliveries');
  });
});
