/**
 * Which webhook URLs may be called, judged from the URL alone (no DNS, no I/O): one rule set for
 * the subscription service and both senders. On Node a connect-time guard
 * (adapters/webhook-target-guard.ts) also judges every resolved address; on Workers there is no
 * lookup to hook, so the URL is all there is to judge.
 */
import { parseIPv4, parseIPv6 } from './ip-address.ts';

/** The `code` of the Error a refused target fails with, at check time or at connect time. */
export const WEBHOOK_TARGET_REFUSED = 'EWEBHOOKTARGET';

/**
 * Said wherever a webhook URL is refused for what WEBHOOK_ALLOW_PRIVATE would allow (plain http:,
 * a private or loopback target), so an admin who runs a receiver on their own network or a demo
 * learns the setting from the refusal itself.
 */
export const ALLOW_PRIVATE_HINT = 'set WEBHOOK_ALLOW_PRIVATE=true to allow plain http: and private or loopback targets';

/** `message` with the setting that would let its URL through. */
export function withAllowPrivateHint(message: string): string {
  return `${message} (${ALLOW_PRIVATE_HINT})`;
}

/** `privateTarget`: WEBHOOK_ALLOW_PRIVATE would let the URL through. */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; privateTarget?: boolean };

export type WebhookTargetRules = {
  /** WEBHOOK_ALLOW_PRIVATE: lets private names and addresses, and plain http, through. */
  allowPrivate: boolean;
  /**
   * `judge`: a public address literal passes (Node, where the connect-time guard stands behind
   * this check). `refuse`: every literal is refused (Workers): with nothing behind the URL check,
   * a receiver must be named, so no notation or range the table misses can reach an address.
   */
  ipLiterals?: 'judge' | 'refuse';
};

/**
 * Names that are private whatever DNS says, with why. Single-label names are resolved through
 * the host's search domains, that is inside its own network.
 */
const PRIVATE_SUFFIXES: readonly (readonly [suffix: string, reason: string])[] = [
  ['localhost', 'a loopback name (RFC 6761)'],
  ['local', 'a multicast DNS name of the local link (RFC 6762)'],
  ['internal', 'a name reserved for private networks (.internal)'],
  ['home.arpa', 'a home network name (RFC 8375)'],
];

/** Whether a subscriber's URL may be called under `rules`, with the reason when it may not. */
export function checkWebhookUrl(url: string, rules: WebhookTargetRules): UrlCheck {
  let parsed: URL;
  try {
    // The WHATWG parser turns every IPv4 notation (0x7f.1, 2130706433, 0177.0.0.1, 127.1) into
    // dotted decimal and every IPv6 one into its compressed form, so only those need judging.
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  // Receivers on a private network may lack TLS; a public receiver must use https.
  if (parsed.protocol !== 'https:' && !(rules.allowPrivate && parsed.protocol === 'http:')) {
    const allowed = rules.allowPrivate ? 'https: or http:' : 'https:';
    const reason = `scheme ${parsed.protocol} is not allowed: expected ${allowed}`;
    return parsed.protocol === 'http:' ? { ok: false, reason, privateTarget: true } : { ok: false, reason };
  }
  // Credentials would be sent to the receiver in clear in an Authorization header, and
  // user:pass@ is a classic way to make a URL look as if it went elsewhere.
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'credentials in the URL are not allowed' };
  if (rules.allowPrivate) return { ok: true, url: parsed };

  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (parseIPv4(host) !== null || parseIPv6(host) !== null) {
    const forbidden = isForbiddenAddress(host);
    if (forbidden) return { ok: false, reason: `address ${host} is ${forbidden}`, privateTarget: true };
    if (rules.ipLiterals === 'refuse') return { ok: false, reason: `address ${host} is an IP literal: name the receiver by a DNS name` };
    return { ok: true, url: parsed };
  }
  const reason = privateNameReason(host);
  if (reason) return { ok: false, reason: `${host} is ${reason}`, privateTarget: true };
  return { ok: true, url: parsed };
}

/** Why a host name is private without asking DNS, or null. */
export function privateNameReason(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (name === '') return 'an empty name';
  for (const [suffix, reason] of PRIVATE_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return reason;
  }
  if (!name.includes('.')) return 'a single-label name, resolved inside the local network';
  return null;
}

type Range4 = readonly [network: string, prefixBits: number, reason: string];

const FORBIDDEN_V4: readonly Range4[] = [
  ['0.0.0.0', 8, '"this network" (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local, cloud metadata (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, '6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  // Includes 255.255.255.255, the limited broadcast address.
  ['240.0.0.0', 4, 'reserved or broadcast (240.0.0.0/4)'],
];

const FORBIDDEN_V4_NUMERIC = FORBIDDEN_V4.map(([network, bits, reason]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (parseIPv4(network)! & mask) >>> 0, mask, reason };
});

/**
 * Why a connection to `ip` is refused, or null when it is a public address. Anything that is not
 * a plain IPv4 or IPv6 address (a zone id, a typo) is refused too.
 */
export function isForbiddenAddress(ip: string): string | null {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return forbiddenV4(v4);
  const v6 = parseIPv6(ip);
  if (v6 !== null) return forbiddenV6(v6);
  return 'not an IP address';
}

function forbiddenV4(address: number): string | null {
  for (const range of FORBIDDEN_V4_NUMERIC) {
    if ((address & range.mask) >>> 0 === range.base) return range.reason;
  }
  return null;
}

/** Judges an IPv6 address (eight 16-bit groups); IPv4 embedded in it is judged as IPv4. */
function forbiddenV6(g: readonly number[]): string | null {
  const at = (i: number) => g[i] ?? 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const viaV4 = (kind: string, v4: number) => {
    const reason = forbiddenV4(v4);
    return reason ? `${kind} ${formatIPv4(v4)}: ${reason}` : null;
  };

  if (zeroUpTo(8)) return 'unspecified (::)';
  if (zeroUpTo(7) && at(7) === 1) return 'loopback (::1)';
  // ::ffff:0:0/96, IPv4-mapped: the socket talks IPv4 to the embedded address.
  if (zeroUpTo(5) && at(5) === 0xffff) return viaV4('IPv4-mapped', embedded(at(6), at(7)));
  // ::ffff:0:0:0/96, IPv4-translated (SIIT).
  if (zeroUpTo(4) && at(4) === 0xffff && at(5) === 0) return viaV4('IPv4-translated', embedded(at(6), at(7)));
  // ::/96, IPv4-compatible (deprecated, but some stacks still route it to the IPv4 address).
  if (zeroUpTo(6)) return viaV4('IPv4-compatible', embedded(at(6), at(7)));
  // 64:ff9b::/96, the well-known NAT64 prefix: the gateway connects to the embedded address.
  if (at(0) === 0x64 && at(1) === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return viaV4('NAT64', embedded(at(6), at(7)));
  // 64:ff9b:1::/48, local-use NAT64: where the IPv4 sits depends on the site's prefix length.
  if (at(0) === 0x64 && at(1) === 0xff9b && at(2) === 1) return 'local-use NAT64 (64:ff9b:1::/48)';
  if (at(0) === 0x100 && g.slice(1, 4).every((x) => x === 0)) return 'discard-only (100::/64)';
  if ((at(0) & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((at(0) & 0xffc0) === 0xfec0) return 'site-local, deprecated (fec0::/10)';
  if ((at(0) & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
  if ((at(0) & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  // 2002::/16, 6to4: bits 16 to 47 are the IPv4 address of the relay.
  if (at(0) === 0x2002) return viaV4('6to4', embedded(at(1), at(2)));
  // 2001::/32, Teredo: the client's IPv4 is obfuscated and the server's can be anything; no
  // legitimate receiver needs it.
  if (at(0) === 0x2001 && at(1) === 0) return 'Teredo (2001::/32)';
  if (at(0) === 0x2001 && at(1) === 0x0db8) return 'documentation (2001:db8::/32)';
  // Everything else outside 2000::/3 is unassigned or special; a public receiver is never there.
  if ((at(0) & 0xe000) !== 0x2000) return 'not global unicast (outside 2000::/3)';
  return null;
}

function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}
