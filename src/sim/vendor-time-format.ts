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

type PacificParts = { year: number; month: number; day: number; hour: number; minute: number; second: number };

function pacificParts(ms: number): PacificParts {
  const parts = new Map(PACIFIC.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const num = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.get(type) ?? Number.NaN);
  return { year: num('year'), month: num('month'), day: num('day'), hour: num('hour'), minute: num('minute'), second: num('second') };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** The vendor's rendering of an instant; sub-second precision is dropped, as the feed has none. */
export function formatVendorTime(ms: number): string {
  const wholeMs = Math.floor(ms / 1000) * 1000;
  const p = pacificParts(wholeMs);
  // The offset is whatever separates Pacific wall time from UTC at that instant, so DST follows
  // from the time zone database instead of from hand-written rules.
  const wallAsUtcMs = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offsetMinutes = Math.round((wallAsUtcMs - wholeMs) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** `YYYY-MM` of the instant in Pacific time, as used in incident urls. */
export function pacificYearMonth(ms: number): string {
  const p = pacificParts(ms);
  return `${pad(p.year, 4)}-${pad(p.month)}`;
}

/** RFC 9110 HTTP-date (IMF-fixdate), for Last-Modified. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}
