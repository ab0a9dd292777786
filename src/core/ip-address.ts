/** Strict parsing of IP address text, shared by the SSRF guard and the rate limiter. */

/** Strict dotted decimal (what resolvers and the URL parser produce) as a 32-bit number, or null. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    // No leading zeros: "010" means 8 to some parsers and 10 to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/**
 * An IPv6 address as eight 16-bit groups, or null. Accepts `::` and a trailing dotted IPv4;
 * refuses zone ids (`%eth0`), brackets, and anything else a resolver would not hand back.
 */
export function parseIPv6(text: string): number[] | null {
  if (text.length === 0 || text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string, allowV4: boolean): number[] | null => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (allowV4 && i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (v4 === null) return null;
        groups.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(piece)) {
        groups.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  if (halves.length === 1) {
    const groups = parseGroups(text, true);
    return groups && groups.length === 8 ? groups : null;
  }
  const head = parseGroups(halves[0]!, false);
  const tail = parseGroups(halves[1]!, true);
  // `::` stands for at least one group of zeros.
  if (!head || !tail || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/**
 * Whether a URL's hostname names this machine whatever DNS says: `localhost`, 127.0.0.0/8, or
 * `::1` (bracketed, as URLs write it). A name that merely resolves to loopback is not one: that
 * is what DNS rebinding relies on.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost') return true;
  const v4 = parseIPv4(host);
  if (v4 !== null) return v4 >>> 24 === 127;
  const bracketed = /^\[(.*)\]$/.exec(host)?.[1];
  const groups = bracketed === undefined ? null : parseIPv6(bracketed);
  return groups?.slice(0, 7).every((g) => g === 0) === true && groups[7] === 1;
}
