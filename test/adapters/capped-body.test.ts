import { describe, expect, it } from 'vitest';
import { createTextPrefix } from '../../src/adapters/capped-body.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createTextPrefix', () => {
  it('joins a character split across chunks and keeps nothing past the cap', () => {
    const prefix = createTextPrefix(9);
    const euro = bytes('€'); // three bytes
    prefix.add(bytes('ab'));
    prefix.add(euro.subarray(0, 1));
    prefix.add(euro.subarray(1));
    prefix.add(bytes('cdefgh'));
    expect(prefix.text).toBe('ab€cdef');
  });

  it('drops a character cut by the cap rather than showing U+FFFD', () => {
    const prefix = createTextPrefix(4);
    prefix.add(bytes('ab€'));
    expect(prefix.text).toBe('ab');
    // Nothing is left over from one prefix to the next.
    const next = createTextPrefix(10);
    next.add(bytes('xy'));
    expect(next.text).toBe('xy');
  });

  it('says what came so far when read midway, and more once more comes', () => {
    const prefix = createTextPrefix(100);
    expect(prefix.text).toBe('');
    prefix.add(bytes('half '));
    expect(prefix.text).toBe('half ');
    prefix.add(bytes('and the rest'));
    expect(prefix.text).toBe('half and the rest');
  });

  it("keeps its own copy of each chunk, so the caller's buffer may be reused", () => {
    const prefix = createTextPrefix(100);
    const buffer = bytes('first');
    prefix.add(buffer);
    buffer.set(bytes('XXXXX'));
    expect(prefix.text).toBe('first');
  });

  it('shows bytes that are not UTF-8 as U+FFFD, as a decoder does', () => {
    const prefix = createTextPrefix(100);
    prefix.add(Uint8Array.from([0x61, 0xff, 0x62]));
    expect(prefix.text).toBe('a\uFFFDb');
  });
});
