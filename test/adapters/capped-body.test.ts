import { describe, expect, it } from 'vitest';
import { createTextPrefix, readBodyWithin } from '../../src/adapters/capped-body.ts';

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

describe('readBodyWithin', () => {
  /** A stream made in JavaScript, not a byte stream: no BYOB reader, so it is read chunk by chunk. */
  const chunked = (...chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(bytes(chunk));
        controller.close();
      },
    });
  /** A byte stream, as fetch bodies are: read into one growing buffer. */
  const byteStream = (...chunks: string[]) =>
    new ReadableStream({
      type: 'bytes',
      start(controller) {
        for (const chunk of chunks) controller.enqueue(bytes(chunk));
        controller.close();
      },
    }) as ReadableStream<Uint8Array>;
  const text = (read: Uint8Array | null) => (read ? new TextDecoder().decode(read) : null);

  it.each([
    ['a stream made in JavaScript', chunked],
    ['a byte stream', byteStream],
  ])('reads %s whole up to exactly the cap, and refuses one byte more', async (_name, make) => {
    expect(text(await readBodyWithin(make('ab€', 'cd'), 7, 0))).toBe('ab€cd');
    expect(await readBodyWithin(make('ab€', 'cde'), 7, 0)).toBeNull();
    // A declared length only sizes the first buffer: one that says less than came still reads it all.
    expect(text(await readBodyWithin(make('abc', 'def'), 100, 2))).toBe('abcdef');
    expect(await readBodyWithin(make('abc', 'def'), 5, 2)).toBeNull();
    expect(text(await readBodyWithin(make(), 5, 0))).toBe('');
  });
});
