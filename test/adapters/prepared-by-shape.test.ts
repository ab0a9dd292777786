import { describe, expect, it } from 'vitest';
import { preparedByShape } from '../../src/adapters/prepared-by-shape.ts';

describe('preparedByShape', () => {
  it('builds each shape once and holds no more than its shapes, whatever it is asked', () => {
    const built: number[] = [];
    const statement = preparedByShape(4, (shape: number) => {
      built.push(shape);
      return { shape };
    });
    for (let round = 0; round < 3; round++) for (const shape of [0, 3, 1, 3]) expect(statement(shape)).toEqual({ shape });
    expect(built).toEqual([0, 3, 1]);
    expect(statement(3)).toBe(statement(3));
    for (const outside of [4, -1, 1.5, Number.NaN]) expect(() => statement(outside)).toThrow(/no such statement shape/);
    expect(built).toEqual([0, 3, 1]);
  });
});
