import { describe, expect, it } from 'vitest';
import { bytesEqual, constantTimeEqual, fromBase64, fromBase64Url, fromHex, toBase64, toBase64Url, toHex } from '../../src/core/bytes.ts';

describe('bytes as text', () => {
  const samples = [
    new Uint8Array(),
    Uint8Array.from([0]),
    Uint8Array.from([255, 254, 253]),
    Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 256),
    // Every length's tail (none, one or two bytes past a triple), with every bit pattern in it.
    ...Array.from({ length: 8 }, (_, n) => Uint8Array.from({ length: 30 + n }, (_, i) => (i * 37 + n * 101) % 256)),
    Uint8Array.from({ length: 256 }, (_, i) => i),
  ];

  it('round-trips hex, base64 and base64url, and agrees with Node', () => {
    for (const bytes of samples) {
      expect(toHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      expect(fromHex(toHex(bytes))).toEqual(bytes);
      if (bytes.length > 0) expect(fromBase64(toBase64(bytes))).toEqual(bytes);
      expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    }
  });

  it('refuses text that is not exactly what the encoder writes', () => {
    expect(fromHex('abc')).toBeNull();
    expect(fromHex('zz')).toBeNull();
    expect(fromBase64('AQ')).toBeNull(); // unpadded
    expect(fromBase64('AR==')).toBeNull(); // unused low bits set: decodes, but not canonical
    expect(fromBase64('A-8=')).toBeNull(); // base64url alphabet
    expect(fromBase64Url('AR')).toBeNull();
    expect(fromBase64Url('AQ==')).toBeNull(); // padded
    expect(fromBase64Url('A')).toBeNull();
    expect(fromBase64Url('a+b/')).toBeNull();
  });

  it('compares bytes and strings in full', () => {
    expect(constantTimeEqual(Uint8Array.from([1, 2, 3]), Uint8Array.from([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(Uint8Array.from([1, 2, 3]), Uint8Array.from([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
  });
});

describe('bytesEqual', () => {
  it('compares whole words and the bytes after them, aligned or not', () => {
    const bytes = Uint8Array.from({ length: 23 }, (_, i) => i * 7);
    const copy = bytes.slice();
    expect(bytesEqual(bytes, copy)).toBe(true);
    for (const at of [0, 5, 19, 22]) {
      const other = bytes.slice();
      other[at]! ^= 1;
      expect(bytesEqual(bytes, other)).toBe(false);
    }
    expect(bytesEqual(bytes, bytes.subarray(0, 22))).toBe(false);
    // Views that start off a word boundary.
    const shifted = new Uint8Array(24);
    shifted.set(bytes, 1);
    expect(bytesEqual(bytes, shifted.subarray(1))).toBe(true);
    expect(bytesEqual(shifted.subarray(1, 5), bytes.subarray(0, 4))).toBe(true);
    expect(bytesEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true);
  });
});
