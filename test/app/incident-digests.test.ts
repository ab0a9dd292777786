/** The incident digests a poll keeps with the archive: bounded, and trusted only where they match exactly. */
import { describe, expect, it } from 'vitest';
import { isDiffedAlready, KEPT_DIGESTS_MAX, keptDigestsOf, keptRevisionsOf } from '../../src/app/incident-digests.ts';
import type { IncidentDigests } from '../../src/core/ports.ts';

const digestsOf = (count: number) => new Map(Array.from({ length: count }, (_, i) => [String(i), `d${i}`] as const));

describe('incident digests', () => {
  it('keeps at most KEPT_DIGESTS_MAX of them, and none for a feed with more, which is then diffed whole', () => {
    expect(Object.keys(keptDigestsOf(digestsOf(KEPT_DIGESTS_MAX), () => 1) ?? {})).toHaveLength(KEPT_DIGESTS_MAX);
    expect(keptDigestsOf(digestsOf(KEPT_DIGESTS_MAX + 1), () => 1)).toBeUndefined();
  });

  it('keeps an incident at the revision it was left, and none that is not archived', () => {
    expect(keptDigestsOf(digestsOf(2), (id) => (id === '0' ? 4 : undefined))).toEqual({ '0': [4, 'd0'] });
  });

  it('trusts a kept digest only at the same revision, with the same digest, as the map’s own entry', () => {
    const kept: IncidentDigests = { '7': [3, 'abc'] };
    expect(isDiffedAlready(kept, '7', 3, 'abc')).toBe(true);
    expect(isDiffedAlready(kept, '7', 4, 'abc')).toBe(false);
    expect(isDiffedAlready(kept, '7', 3, 'abd')).toBe(false);
    expect(isDiffedAlready(kept, '8', undefined, 'abc')).toBe(false);
    expect(isDiffedAlready(kept, 'toString', 3, 'abc')).toBe(false);
    expect(isDiffedAlready(JSON.parse('{"7": "3,abc"}') as IncidentDigests, '7', 3, 'abc')).toBe(false);
    expect(isDiffedAlready(undefined, '7', 3, 'abc')).toBe(false);
  });

  it('trusts the kept revisions only while the archive generation is the one the diff left, and reads what they do not name', () => {
    const diffed = { atMs: 0, generation: 5, sources: [], incidents: { '1': [3, 'a'], '2': [1, 'b'] } as IncidentDigests };
    expect(keptRevisionsOf({ generation: 5, diffed }, ['1', '2', '9'])).toEqual({
      revisions: new Map([
        ['1', 3],
        ['2', 1],
      ]),
      unknown: ['9'],
    });
    expect(keptRevisionsOf({ generation: 6, diffed }, ['1'])).toBeNull();
    expect(keptRevisionsOf({ generation: 5, diffed: { ...diffed, incidents: undefined } }, ['1'])).toBeNull();
    expect(keptRevisionsOf({ generation: 0, diffed: null }, ['1'])).toBeNull();
    const odd = { ...diffed, incidents: JSON.parse('{"1": "3,a", "2": ["x", "b"]}') as IncidentDigests };
    expect(keptRevisionsOf({ generation: 5, diffed: odd }, ['1', '2', 'toString'])).toEqual({ revisions: new Map(), unknown: ['1', '2', 'toString'] });
  });
});
