import { describe, expect, it } from 'vitest';
import { toFtsQuery } from '../../src/core/search-query.ts';

describe('toFtsQuery', () => {
  it('quotes each word as a prefix', () => {
    expect(toFtsQuery('files upload')).toBe('"files"* "upload"*');
  });

  it('turns FTS5 syntax into plain words', () => {
    expect(toFtsQuery('title:files NEAR("a" b) OR -x *')).toBe('"title"* "files"* "NEAR"* "a"* "b"* "OR"* "x"*');
  });

  it('returns null when nothing is searchable', () => {
    expect(toFtsQuery(' "*-(): ')).toBeNull();
  });

  it('keeps non-Latin words', () => {
    expect(toFtsQuery('инцидент Files')).toBe('"инцидент"* "Files"*');
  });
});
