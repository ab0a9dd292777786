/** The kept DiffedFeed's text: what a store wrote is read back as it was, any other text parsed and checked. */
import { describe, expect, it } from 'vitest';
import { createDiffedFeedCodec, diffedFeedMembers } from '../../src/adapters/sqlite-diffed-feed.ts';
import type { DiffedFeed } from '../../src/core/ports.ts';

const feed: Omit<DiffedFeed, 'generation'> = {
  atMs: 1_700_000_000_000,
  sources: [{ source: 'v2/history', sha256: 'ab'.repeat(32), incidents: 2, skipped: 0 }],
  incidents: { '1579': [3, 'c0ffee'], '1580': [1, 'beef'] },
  seenRefreshedAtMs: 1_699_999_990_000,
};
/** The row as KEEP_DIFFED_FEED leaves it: the generation spliced in front of the members. */
const rowOf = (generation: number, members: string) => `{"generation":${generation}${members}`;

describe('kept DiffedFeed codec', () => {
  it('reads its own last write back as the object written, with the generation the row holds', () => {
    const codec = createDiffedFeedCodec();
    const members = codec.members(feed);
    const read = codec.parse(rowOf(42, members));
    expect(read).toEqual({ ...feed, generation: 42 });
    // The digests are the ones written, not a parse of them.
    expect(read?.incidents).toBe(feed.incidents);
  });

  it('parses a row another process wrote, and the same text the same way whoever wrote it', () => {
    const codec = createDiffedFeedCodec();
    codec.members(feed);
    const other = { ...feed, incidents: { '1579': [4, 'f00d'] as [number, string] } };
    expect(codec.parse(rowOf(7, diffedFeedMembers(other)))).toEqual({ ...other, generation: 7 });
    expect(createDiffedFeedCodec().parse(rowOf(42, diffedFeedMembers(feed)))).toEqual({ ...feed, generation: 42 });
  });

  it('keeps the archive generation, not one the written object carried', () => {
    const codec = createDiffedFeedCodec();
    const members = codec.members({ ...feed, generation: 3 } as DiffedFeed);
    expect(members).not.toContain('"generation"');
    expect(codec.parse(rowOf(9, members))?.generation).toBe(9);
  });

  it('answers none for a row that does not read as a DiffedFeed, even one ending in its own last members', () => {
    const codec = createDiffedFeedCodec();
    const members = codec.members(feed);
    expect(codec.parse(`{"generation":"x"${members}`)).toBeNull();
    expect(codec.parse('{"generation":1,"atMs":"soon","sources":[]}')).toBeNull();
    expect(codec.parse('not json')).toBeNull();
  });
});
