/**
 * A pure sliding-window rate limiter whose state is plain data the caller keeps (in memory or in
 * the database), plus the keys and default rules of the public sign-up form.
 */
import { parseIPv4, parseIPv6 } from './ip-address.ts';

/** At most `limit` allowed hits in any span of `windowMs`. */
export type LimitRule = { limit: number; windowMs: number };

/**
 * When each allowed hit in the current window happened, oldest first. An exact log rather than a
 * token bucket: "5 per 10 minutes" then means exactly that over any 10 minutes, and with the small
 * limits used here the state is at most a handful of numbers (never more than `limit`).
 */
export type LimitState = { hitsMs: number[] };

export type LimitDecision = {
  allowed: boolean;
  /** Store this even when refused: it is the old log with expired hits dropped. */
  state: LimitState;
  /** 0 when allowed; otherwise how long until the oldest counted hit leaves the window. */
  retryAfterMs: number;
};

const MINUTE_MS = 60 * 1000;

/**
 * Defaults for the sign-up form. Per client address, 5 in 10 minutes lets a person fix a typo or
 * sign up a second address, but not script the form. Per recipient, 3 an hour caps how many
 * confirmation emails anyone can make us send to a stranger's inbox while still allowing a resend
 * or two when the first one landed in spam.
 */
export const signupLimits: { perClientAddress: LimitRule; perRecipient: LimitRule } = {
  perClientAddress: { limit: 5, windowMs: 10 * MINUTE_MS },
  perRecipient: { limit: 3, windowMs: 60 * MINUTE_MS },
};

/**
 * Decides one attempt at `now`. Only allowed hits are recorded: refused attempts do not count, so
 * a client that keeps retrying is let in as soon as its oldest allowed hit ages out, rather than
 * being locked out for as long as it keeps knocking. A hit is counted while `now < hit + windowMs`.
 */
export function checkLimit(state: LimitState | undefined, rule: LimitRule, now: number): LimitDecision {
  checkRule(rule);
  // Stored state comes back from JSON or SQLite: keep only numbers, in order.
  const hitsMs = (state?.hitsMs ?? []).filter((t) => Number.isFinite(t) && now < t + rule.windowMs).sort((a, b) => a - b);
  if (hitsMs.length < rule.limit) return { allowed: true, state: { hitsMs: [...hitsMs, now] }, retryAfterMs: 0 };
  // Normally hitsMs.length === limit; more are left over when the rule was lowered since.
  const freesUpAtMs = hitsMs[hitsMs.length - rule.limit]! + rule.windowMs;
  return { allowed: false, state: { hitsMs }, retryAfterMs: Math.max(0, freesUpAtMs - now) };
}

/**
 * The key a client address is limited under. IPv6 clients are grouped by their /64, because one
 * host or household is usually given a whole /64 and can take a new address from it for every
 * request. IPv4 (including IPv4-mapped IPv6, `::ffff:1.2.3.4`) is limited per address. Text that
 * is not a canonical address is keyed as itself, trimmed and lowercased, so it is still limited.
 */
export function limitKeyForAddress(ip: string): string {
  // Tolerate the decorations proxies and URLs add: brackets and an interface zone.
  const text = ip
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const v4 = parseIPv4(text);
  if (v4 !== null) return `ip4:${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`;
  const v6 = parseIPv6(text);
  // Capped so a junk header cannot make huge keys in the store.
  if (!v6) return `raw:${ip.trim().toLowerCase().slice(0, 100)}`;
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    const [hi = 0, lo = 0] = v6.slice(6);
    return `ip4:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `ip6:${v6
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/**
 * The key a recipient is limited under. Lowercasing the whole address is looser than RFC 5321
 * (local parts may be case-sensitive) but errs towards limiting, which is the side to err on.
 */
export function limitKeyForRecipient(email: string): string {
  return `rcpt:${email.trim().toLowerCase()}`;
}

export type MemoryLimiter = {
  hit(key: string, now: number): LimitDecision;
  /** How many keys are held; never more than `maxKeys`. */
  size(): number;
};

/**
 * The limiter with its state in a Map, for a single Node process. Keys are dropped least recently
 * hit first once there are `maxKeys`, which bounds memory; dropping a key forgets its limit, so
 * size it well above the number of clients seen in one window (each key costs a few numbers).
 * Several processes or Workers isolates each have their own Map: keep the state in the database
 * there.
 */
export function createMemoryLimiter(rule: LimitRule, maxKeys: number): MemoryLimiter {
  checkRule(rule);
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new Error(`memory limiter: expected maxKeys to be a positive integer, got ${maxKeys}`);
  const states = new Map<string, LimitState>();
  return {
    hit(key, now) {
      const decision = checkLimit(states.get(key), rule, now);
      // Re-inserting moves the key to the end, so the Map's first key is the least recently hit.
      states.delete(key);
      states.set(key, decision.state);
      while (states.size > maxKeys) {
        const oldest = states.keys().next();
        if (oldest.done) break;
        states.delete(oldest.value);
      }
      return decision;
    },
    size: () => states.size,
  };
}

function checkRule(rule: LimitRule): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) throw new Error(`limit rule: expected limit to be a positive integer, got ${rule.limit}`);
  if (!Number.isFinite(rule.windowMs) || rule.windowMs <= 0) throw new Error(`limit rule: expected windowMs to be a positive number, got ${rule.windowMs}`);
}
