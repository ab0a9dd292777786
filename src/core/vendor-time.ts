/** Parses the vendor's timestamps ("2026-10-01T05:39:35-07:00") into instants, keeping the text as given. */

/** A vendor timestamp: the text exactly as the feed gave it, and the instant it names. */
export type VendorTime = { raw: string; ms: number };

// ISO 8601 with a mandatory offset. The real feed never sends `Z` or fractions, but both are valid
// ISO and cost nothing to accept. A missing offset is refused: the vendor's offsets follow US
// Pacific DST, so guessing one would be wrong half the year (FACTS.md, "Timestamps").
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function parseVendorTime(raw: string): VendorTime | null {
  const text = raw.trim();
  const m = ISO_WITH_OFFSET.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '', offset = 'Z'] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const millis = Number((frac + '000').slice(0, 3));
  const utc = Date.UTC(Number(y), month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 31 February over into March: refuse dates that do not exist.
  if (new Date(utc).getUTCDate() !== day) return null;
  return { raw: text, ms: utc - offsetMinutes(offset) * 60_000 };
}

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
}

/** Formats an instant as ISO 8601 in UTC, at second precision like the vendor ("2026-10-01T12:39:35Z"). */
export function toIsoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
