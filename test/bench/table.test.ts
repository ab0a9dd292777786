/** The bench's goal lines: a figure is shown with the decimals that tell it from its goal. */
import { describe, expect, it } from 'vitest';
import { msAgainst, ratioAgainst } from './table.ts';

describe('a figure held to a goal', () => {
  it('shows a miss a hair past the goal as a miss, not as the goal', () => {
    expect(ratioAgainst(0.5998, 0.6)).toBe('0.5998x');
    expect(msAgainst(10.04, 10)).toBe('10.04');
    expect(msAgainst(9.9996, 10)).toBe('9.9996');
  });

  it('keeps the usual decimals when they already tell the figure from the goal', () => {
    expect(ratioAgainst(0.694, 0.6)).toBe('0.69x');
    expect(ratioAgainst(0.6, 0.6)).toBe('0.60x');
    expect(msAgainst(13.7, 10)).toBe('13.7');
    expect(msAgainst(6.9, 10)).toBe('6.90');
  });
});
