/** "Did you mean": the names within a few letters of one not found, closest first, case ignored. */
import { describe, expect, it } from 'vitest';
import { closeNames, editDistance } from '../../src/core/close-names.ts';

describe('closeNames', () => {
  it('counts the letters to add, drop or change', () => {
    expect(editDistance('Suport', 'Support')).toBe(1);
    expect(editDistance('support', 'Support')).toBe(0);
    expect(editDistance('', 'Ops')).toBe(3);
  });

  it('offers the names a few letters off, closest first, and none that are far', () => {
    const names = ['Engineering', 'Support', 'Supports', 'Sales', 'Ops'];
    expect(closeNames('Suport', names, 3)).toEqual(['Support', 'Supports']);
    expect(closeNames('engineerign', names, 3)).toEqual(['Engineering']);
    expect(closeNames('Marketing', names, 3)).toEqual([]);
    expect(closeNames('Suport', names, 1)).toEqual(['Support']);
  });

  it('compares long names by their start only, so a hostile one costs little', () => {
    const long = 'x'.repeat(100_000);
    expect(editDistance(long, long.slice(0, 100))).toBe(0);
  });
});
