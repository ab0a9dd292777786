/** A refusal of a group that is not there lists what is, within bounds: twenty names shown, each cut short, the rest counted. */
import { describe, expect, it } from 'vitest';
import { groupNotFound } from '../../src/app/group-sync.ts';

describe('groupNotFound', () => {
  it('shows at most twenty groups and counts the rest', () => {
    const names = Array.from({ length: 25 }, (_, i) => `Team ${i}`);
    const text = groupNotFound('Nobody', names);
    expect(text).toBe(
      `the directory has no group with the id or display name "Nobody"; its groups: ${names
        .slice(0, 20)
        .map((n) => `"${n}"`)
        .join(', ')} and 5 more`,
    );
  });

  it('cuts each name shown at 100 characters, and says when the directory lists none', () => {
    const long = 'G'.repeat(500);
    expect(groupNotFound('x', [long])).toBe(`the directory has no group with the id or display name "x"; its groups: "${'G'.repeat(100)}"`);
    expect(groupNotFound('Ops', [])).toBe('the directory has no group with the id or display name "Ops", and lists no groups');
  });
});
