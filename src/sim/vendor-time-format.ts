/** Formats and parses timestamps the way the vendor writes them: `YYYY-MM-DDTHH:MM:SS±HH:MM` in US Pacific time. */

const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Minutes Pacific wall time is ahead of UTC at an instant (negative: -420 or -480), from Intl. */
function intlOffsetMinutes(ms: number): number {
  const parts = new Map(PACIFIC.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const num = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.get(type) ?? Number.NaN);
  const wallAsUtcMs = Date.UTC(num('year'), num('month') - 1, num('day'), num('hour'), num('minute'), num('second'));
  return Math.round((wallAsUtcMs - ms) / 60_000);
}

// Asking Intl costs ~18 µs an instant, which made rendering a 120-incident history take 12 ms.
// The offset changes at most once a UTC day, on a whole UTC hour: a day whose first and last
// hours agree has one offset all day; on the two change days a year, ask for the hour.
const offsetByUtcDay = new Map<number, number | null>();

function pacificOffsetMinutes(wholeMs: number): number {
  const day = Math.floor(wholeMs / DAY_MS);
  let offset = offsetByUtcDay.get(day);
  if (offset === undefined) {
    const first = intlOffsetMinutes(day * DAY_MS);
    offset = first === intlOffsetMinutes(day * DAY_MS + 23 * HOUR_MS) ? first : null;
    offsetByUtcDay.set(day, offset);
  }
  return offset ?? intlOffsetMinutes(Math.floor(wholeMs / HOUR_MS) * HOUR_MS);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The vendor's rendering of an instant; sub-second precision is dropped, as the feed has none. */
export function formatVendorTime(ms: number): string {
  const wholeMs = Math.floor(ms / 1000) * 1000;
  // DST comes from the time zone database (through Intl), not from hand-written rules.
  const offsetMinutes = pacificOffsetMinutes(wholeMs);
  const wall = new Date(wholeMs + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offsetMinutes);
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `YYYY-MM` of the instant in Pacific time, as used in incident urls. */
export function pacificYearMonth(ms: number): string {
  return formatVendorTime(ms).slice(0, 7);
}

/** RFC 9110 HTTP-date (IMF-fixdate), for Last-Modified. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
