import { describe, expect, it } from 'vitest';
import { parseVendorTime, toIsoSeconds, toIsoUtc } from '../../src/core/vendor-time.ts';

describe('parseVendorTime', () => {
  it('reads the Pacific offsets the feed uses, winter and summer alike', () => {
    expect(parseVendorTime('2026-02-24T06:36:56-08:00')?.ms).toBe(Date.UTC(2026, 1, 24, 14, 36, 56));
    expect(parseVendorTime('2026-10-01T05:39:35-07:00')?.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
  });

  it('keeps the text exactly as given', () => {
    expect(parseVendorTime('2019-02-19T16:29:24-08:00')?.raw).toBe('2019-02-19T16:29:24-08:00');
  });

  it('accepts Z, fractions and a compact offset, which the real feed never sent but ISO allows', () => {
    expect(parseVendorTime('2026-10-01T12:39:35Z')?.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
    expect(parseVendorTime('2026-10-01T12:39:35.250Z')?.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35, 250));
    expect(parseVendorTime('2026-10-01T05:39:35-0700')?.ms).toBe(Date.UTC(2026, 9, 1, 12, 39, 35));
  });

  it('orders instants correctly where comparing the strings would not', () => {
    // 23:30 at -08:00 is after 00:15 the next day at +00:00... as text it sorts first.
    const a = parseVendorTime('2026-01-01T23:30:00-08:00')!;
    const b = parseVendorTime('2026-01-02T00:15:00+00:00')!;
    expect(a.ms).toBeGreaterThan(b.ms);
  });

  it.each(['2026-10-01T05:39:35', '2026-10-01', 'yesterday', '2026-02-31T00:00:00Z', '2026-13-01T00:00:00Z', ''])(
    'refuses %j (no offset, or not a real time)',
    (text) => expect(parseVendorTime(text)).toBeNull(),
  );

  it('formats instants at second precision in UTC', () => {
    expect(toIsoSeconds(Date.UTC(2026, 9, 1, 12, 39, 35, 999))).toBe('2026-10-01T12:39:35Z');
  });
});

describe('toIsoUtc', () => {
  it('writes exactly what toISOString writes, across centuries, leap days and every millisecond digit', () => {
    const edges = [0, 1, 951_782_400_000 /* 2000-02-29 */, 4_107_542_399_999 /* 2100-02-28T23:59:59.999 */, 253_402_300_799_999, -1, 253_402_300_800_000, 1.5];
    let x = 0;
    const samples = Array.from({ length: 20_000 }, () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x * 117_000 + (x % 1000);
    });
    for (const ms of [...edges, ...samples]) expect(toIsoUtc(ms), String(ms)).toBe(new Date(ms).toISOString());
  });
});

describe('parseVendorTime, malformed values a hostile feed may send', () => {
  it.each(['2026-10-01T05:39:35+99:99', '2026-10-01T05:39:35+2400', '2026-10-01T05:39:35-14:30', '2026-10-01T05:39:35+05:60', '2026-10-01T05:39:35+1500'])(
    'refuses the offset of %j instead of shifting the time by hours or days',
    (text) => expect(parseVendorTime(text)).toBeNull(),
  );

  it('accepts every real offset, from -12:00 to +14:00, with minutes', () => {
    expect(parseVendorTime('2026-10-01T00:00:00+14:00')?.ms).toBe(Date.UTC(2026, 8, 30, 10));
    expect(parseVendorTime('2026-10-01T00:00:00-12:00')?.ms).toBe(Date.UTC(2026, 9, 1, 12));
    expect(parseVendorTime('2026-10-01T00:00:00+0545')?.ms).toBe(Date.UTC(2026, 8, 30, 18, 15));
  });

  it('reads years before 100 as themselves, not as 1900-1999', () => {
    expect(new Date(parseVendorTime('0050-06-01T00:00:00Z')!.ms).getUTCFullYear()).toBe(50);
    expect(new Date(parseVendorTime('0000-01-01T00:00:00Z')!.ms).getUTCFullYear()).toBe(0);
    expect(parseVendorTime('0001-02-29T00:00:00Z')).toBeNull(); // not a leap year
    expect(parseVendorTime('2024-02-29T00:00:00Z')?.ms).toBe(Date.UTC(2024, 1, 29));
  });
});
