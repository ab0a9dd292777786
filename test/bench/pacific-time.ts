/**
 * The vendor's timestamp text, fast: the sim's formatVendorTime asks Intl for every instant (about
 * 18 µs each), which alone would take many seconds over the 100,000-incident archive.
 */
import { formatVendorTime } from '../../src/sim/vendor-time-format.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Per UTC day: its one offset, or null on the two days a year when US Pacific changes it. */
const offsetByUtcDay = new Map<number, string | null>();

/** Same text as formatVendorTime (checkFastVendorTime proves it around a DST change). */
export function fastVendorTime(ms: number): string {
  const wholeMs = Math.floor(ms / 1000) * 1000;
  const offset = pacificOffset(wholeMs);
  const sign = offset.startsWith('-') ? -1 : 1;
  const offsetMs = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
  return new Date(wholeMs + offsetMs).toISOString().slice(0, 19) + offset;
}

/** Throws unless both formatters agree every ten minutes across a spring and an autumn change. */
export function checkFastVendorTime(): void {
  for (const dayStart of [Date.UTC(2024, 2, 10), Date.UTC(2024, 10, 3)]) {
    for (let ms = dayStart - DAY_MS; ms < dayStart + 2 * DAY_MS; ms += 10 * 60_000) {
      if (fastVendorTime(ms) !== formatVendorTime(ms)) throw new Error(`fastVendorTime(${ms}) differs from formatVendorTime`);
    }
  }
}

// The offset changes at most once a day and on a whole UTC hour: equal offsets at the first and
// last hour of a day hold for all of it; otherwise ask for the hour.
function pacificOffset(wholeMs: number): string {
  const day = Math.floor(wholeMs / DAY_MS);
  let offset = offsetByUtcDay.get(day);
  if (offset === undefined) {
    const first = intlOffset(day * DAY_MS);
    offset = first === intlOffset(day * DAY_MS + 23 * HOUR_MS) ? first : null;
    offsetByUtcDay.set(day, offset);
  }
  return offset ?? intlOffset(Math.floor(wholeMs / HOUR_MS) * HOUR_MS);
}

function intlOffset(ms: number): string {
  return formatVendorTime(ms).slice(19);
}
