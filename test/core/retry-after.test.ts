import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from '../../src/core/retry-after.ts';

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1);
  it('reads seconds and dates, and ignores the rest', () => {
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    for (const value of [null, '', '-5', '1.5', 'soon', '1e3', '12:00']) expect(parseRetryAfterMs(value, now), String(value)).toBeNull();
  });
});
