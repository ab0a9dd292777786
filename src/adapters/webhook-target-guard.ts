/**
 * Keeps webhook deliveries away from our own network (SSRF): refuses URLs that name a private
 * address, and checks every address again at connection time, after DNS, so a name that
 * re-resolves to a private address (DNS rebinding) cannot slip through.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { parseIPv4, parseIPv6 } from '../core/ip-address.ts';

/** The `code` of the Error a refused target fails with, at check time or at connect time. */
export const WEBHOOK_TARGET_REFUSED = 'EWEBHOOKTARGET';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Whether a subscriber's URL may be called, judged without any I/O. Names are only judged at
 * connect time (see `guardedLookup`); IP literals are judged here, because Node connects to a
 * literal without calling any lookup.
 */
export function checkWebhookUrl(url: string, options: { allowPrivate: boolean }): UrlCheck {
  let parsed: URL;
  try {
    // The WHATWG parser turns every IPv4 notation (0x7f.1, 2130706433, 0177.0.0.1, 127.1) into
    // dotted decimal and every IPv6 one into its compressed form, so only those need judging.
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  // Receivers on a private network may lack TLS; a public receiver must use https.
  if (parsed.protocol !== 'https:' && !(options.allowPrivate && parsed.protocol === 'http:')) {
    const allowed = options.allowPrivate ? 'https: or http:' : 'https:';
    return { ok: false, reason: `scheme ${parsed.protocol} is not allowed: expected ${allowed}` };
  }
  // Credentials would be sent to the receiver in clear in an Authorization header, and
  // user:pass@ is a classic way to make a URL look as if it went elsewhere.
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'credentials in the URL are not allowed' };
  if (options.allowPrivate) return { ok: true, url: parsed };

  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (isIP(host) !== 0) {
    const forbidden = isForbiddenAddress(host);
    if (forbidden) return { ok: false, reason: `address ${host} is ${forbidden}` };
    return { ok: true, url: parsed };
  }
  // RFC 6761: localhost and its subdomains are loopback whatever DNS says; refuse without asking.
  const name = host.replace(/\.$/, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return { ok: false, reason: `${host} is a loopback name` };
  return { ok: true, url: parsed };
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
    if (((address & range.mask) >>> 0) === range.base) return range.reason;
  }
  return null;
}

/** Judges an IPv6 address (eight 16-bit groups); IPv4 embedded in it is judged as IPv4. */
function forbiddenV6(g: readonly number[]): string | null {
  const at = (i: number) => g[i] ?? 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = (hi: number, lo: number) => (((hi << 16) | lo) >>> 0);
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


type LookupCallback = Parameters<LookupFunction>[2];

function refusal(hostname: string, address: string, reason: string): NodeJS.ErrnoException {
  const target = hostname === address ? `address ${address} is` : `${hostname} resolves to ${address}, which is`;
  const error: NodeJS.ErrnoException = new Error(`target refused: ${target} ${reason}`);
  error.code = WEBHOOK_TARGET_REFUSED;
  return error;
}

/**
 * A `lookup` for net.connect (and undici's `connect` options) that resolves with the real
 * resolver and fails with code EWEBHOOKTARGET if ANY address is forbidden: it runs right before
 * the socket connects, so what was checked is what is connected to. `lookup` is injectable only
 * so tests can simulate a rebinding resolver; production uses dns.lookup.
 */
export function guardedLookup(allowPrivate: boolean, lookup: LookupFunction = dns.lookup as LookupFunction): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    // Always ask for every address, so none escapes the check, then answer in the shape asked for.
    lookup(hostname, { ...options, all: true }, (error, result) => {
      if (error) return callback(error, '');
      const addresses: LookupAddress[] = typeof result === 'string' ? [{ address: result, family: isIP(result) }] : result;
      if (addresses.length === 0) {
        const empty: NodeJS.ErrnoException = new Error(`webhook target ${hostname}: no address`);
        empty.code = 'ENOTFOUND';
        return callback(empty, '');
      }
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const reason = isForbiddenAddress(address);
          if (reason) return callback(refusal(hostname, address, reason), '');
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export type GuardedConnectorOptions = {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  lookup?: LookupFunction;
};

/**
 * An undici connector that refuses forbidden IP literals (which net.connect would dial without
 * a lookup) and otherwise connects through `guardedLookup`. A second line behind checkWebhookUrl.
 */
export function guardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({
    lookup: guardedLookup(options.allowPrivate, options.lookup),
    timeout: options.connectTimeoutMs,
  });
  return (connectOptions, callback) => {
    // IPv6 literals come bracketed, as in the URL ("[::1]"); isIP wants them bare.
    const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!options.allowPrivate && isIP(host) !== 0) {
      const reason = isForbiddenAddress(host);
      if (reason) {
        callback(refusal(host, host, reason), null);
        return;
      }
    }
    connect(connectOptions, callback);
  };
}
