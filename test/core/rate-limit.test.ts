import { describe, expect, it } from 'vitest';
import { checkLimit, createMemoryLimiter, limitKeyForAddress, limitKeyForRecipient, signupLimits } from '../../src/core/rate-limit.ts';
import type { LimitRule, LimitState } from '../../src/core/rate-limit.ts';

const MINUTE_MS = 60_000;
const rule: LimitRule = { limit: 3, windowMs: 10 * MINUTE_MS };
const t0 = Date.UTC(2025, 0, 15, 12);

/** Runs hits at the given times, threading the state as a caller would. */
function run(times: number[], r: LimitRule = rule, start?: LimitState) {
  let state = start;
  return times.map((now) => {
    const decision = checkLimit(state, r, now);
    state = decision.state;
    return decision;
  });
}

describe('checkLimit', () => {
  it('allows up to the limit, then refuses', () => {
    const decisions = run([t0, t0 + 1, t0 + 2, t0 + 3, t0 + 4]);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.slice(0, 3).map((d) => d.retryAfterMs)).toEqual([0, 0, 0]);
  });

  it('says when the oldest hit leaves the window, and allows exactly then', () => {
    const [, , , refused] = run([t0, t0 + MINUTE_MS, t0 + 2 * MINUTE_MS, t0 + 5 * MINUTE_MS]);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 5 * MINUTE_MS });
    const state = refused!.state;
    expect(checkLimit(state, rule, t0 + 10 * MINUTE_MS - 1)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    expect(checkLimit(state, rule, t0 + 10 * MINUTE_MS)).toMatchObject({ allowed: true, retryAfterMs: 0 });
  });

  it('allows a full limit again after the window', () => {
    const first = run([t0, t0, t0, t0]);
    const later = t0 + rule.windowMs;
    const again = run([later, later, later, later], rule, first[3]!.state);
    expect(again.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(again[3]!.retryAfterMs).toBe(rule.windowMs);
  });

  it('does not count refusals, so retrying does not push the window back', () => {
    const decisions = run([t0, t0, t0, ...Array.from({ length: 20 }, (_, i) => t0 + (i + 1) * 1000)]);
    expect(decisions.slice(3).every((d) => !d.allowed)).toBe(true);
    expect(decisions.at(-1)!.state).toEqual({ hitsMs: [t0, t0, t0] });
    expect(checkLimit(decisions.at(-1)!.state, rule, t0 + rule.windowMs).allowed).toBe(true);
  });

  it('drops expired hits from the state it returns', () => {
    const { state } = checkLimit({ hitsMs: [t0 - rule.windowMs, t0 - 1] }, rule, t0);
    expect(state).toEqual({ hitsMs: [t0 - 1, t0] });
  });

  it('copes with state that is unordered, holds junk, or outgrew a lowered rule', () => {
    expect(checkLimit({ hitsMs: [t0 - 1, NaN, t0 - 3] }, rule, t0).state).toEqual({ hitsMs: [t0 - 3, t0 - 1, t0] });
    const lowered = checkLimit({ hitsMs: [t0 - 5, t0 - 4, t0 - 3] }, { limit: 1, windowMs: rule.windowMs }, t0);
    expect(lowered).toMatchObject({ allowed: false, retryAfterMs: rule.windowMs - 3 });
  });

  it('refuses rules that make no sense', () => {
    expect(() => checkLimit(undefined, { limit: 0, windowMs: 1000 }, t0)).toThrow(/positive integer, got 0/);
    expect(() => checkLimit(undefined, { limit: 1.5, windowMs: 1000 }, t0)).toThrow(/limit/);
    expect(() => checkLimit(undefined, { limit: 1, windowMs: 0 }, t0)).toThrow(/windowMs/);
  });

  it('has sign-up defaults of 5 per 10 minutes per client and 3 per hour per recipient', () => {
    expect(signupLimits).toEqual({
      perClientAddress: { limit: 5, windowMs: 10 * MINUTE_MS },
      perRecipient: { limit: 3, windowMs: 60 * MINUTE_MS },
    });
  });
});

describe('limitKeyForAddress', () => {
  it('keys IPv4 by the full address', () => {
    expect(limitKeyForAddress('203.0.113.7')).toBe('ip4:203.0.113.7');
    // Not canonical (sockets never write it so): keyed as the text itself, and still limited.
    expect(limitKeyForAddress(' 203.0.113.007 ')).toBe('raw:203.0.113.007');
    expect(limitKeyForAddress('203.0.113.8')).not.toBe(limitKeyForAddress('203.0.113.7'));
  });

  it('reads IPv4-mapped IPv6 as IPv4', () => {
    expect(limitKeyForAddress('::ffff:203.0.113.7')).toBe('ip4:203.0.113.7');
    expect(limitKeyForAddress('::FFFF:203.0.113.7')).toBe('ip4:203.0.113.7');
    expect(limitKeyForAddress('0:0:0:0:0:ffff:cb00:7107')).toBe('ip4:203.0.113.7');
    expect(limitKeyForAddress('[::ffff:203.0.113.7]')).toBe('ip4:203.0.113.7');
  });

  it('groups IPv6 by /64, whatever the spelling', () => {
    const key = limitKeyForAddress('2001:db8:abcd:12::1');
    expect(key).toBe('ip6:2001:db8:abcd:12::/64');
    for (const same of ['2001:0db8:abcd:0012:ffff:ffff:ffff:ffff', '2001:DB8:ABCD:12:1:2:3:4', '[2001:db8:abcd:12::9]', '2001:db8:abcd:12::1%eth0']) {
      expect(limitKeyForAddress(same), same).toBe(key);
    }
    expect(limitKeyForAddress('2001:db8:abcd:13::1')).not.toBe(key);
    expect(limitKeyForAddress('::1')).toBe('ip6:0:0:0:0::/64');
    expect(limitKeyForAddress('2001:db8::')).toBe('ip6:2001:db8:0:0::/64');
    expect(limitKeyForAddress('64:ff9b::203.0.113.7')).toBe('ip6:64:ff9b:0:0::/64');
  });

  it('keys anything else as its own text, so it is still limited', () => {
    expect(limitKeyForAddress('unknown')).toBe('raw:unknown');
    expect(limitKeyForAddress('1.2.3.256')).toBe('raw:1.2.3.256');
    expect(limitKeyForAddress('1::2::3')).toBe('raw:1::2::3');
    expect(limitKeyForAddress('1:2:3:4:5:6:7:8:9')).toBe('raw:1:2:3:4:5:6:7:8:9');
    expect(limitKeyForAddress('x'.repeat(500))).toHaveLength(104);
  });
});

describe('limitKeyForRecipient', () => {
  it('ignores case and surrounding space', () => {
    expect(limitKeyForRecipient(' Ada@Example.COM ')).toBe(limitKeyForRecipient('ada@example.com'));
  });
});

describe('createMemoryLimiter', () => {
  it('limits each key on its own', () => {
    const limiter = createMemoryLimiter(rule, 100);
    expect([1, 2, 3, 4].map(() => limiter.hit('a', t0).allowed)).toEqual([true, true, true, false]);
    expect(limiter.hit('b', t0).allowed).toBe(true);
    expect(limiter.hit('a', t0 + rule.windowMs).allowed).toBe(true);
  });

  it('holds at most maxKeys, dropping the least recently hit', () => {
    const limiter = createMemoryLimiter({ limit: 1, windowMs: rule.windowMs }, 3);
    for (const key of ['a', 'b', 'c']) limiter.hit(key, t0);
    limiter.hit('a', t0 + 1); // refused, but touches a: b is now the oldest
    limiter.hit('d', t0 + 2);
    expect(limiter.size()).toBe(3);
    expect(limiter.hit('a', t0 + 3).allowed).toBe(false);
    expect(limiter.hit('b', t0 + 4).allowed).toBe(true); // forgotten, so allowed again
    for (let i = 0; i < 1000; i++) limiter.hit(`k${i}`, t0 + 5);
    expect(limiter.size()).toBe(3);
  });

  it('refuses a size that makes no sense', () => {
    expect(() => createMemoryLimiter(rule, 0)).toThrow(/maxKeys/);
  });
});
