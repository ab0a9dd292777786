/**
 * The vendor's timestamp text, fast: the sim's formatVendorTime asks Intl for every instant (about
 * 18 µs each), which alone would take half a minute over the 100,000-incident archive.
 */
import { formatVendorTime } from '../../src/sim/vendor-time-format.ts';

const HOUR_MS = 3_600_000;
const offsetByUtcHour = new Map<number, string>();

/** Same text as formatVendorTime. US Pacific changes offset on a whole UTC hour, so one Intl call per hour suffices. */
export function fastVendorTime(ms: number): string {
  const wholeMs = Math.floor(ms / 1000) * 1000;
  const hour = Math.floor(wholeMs / HOUR_MS);
  let offset = offsetByUtcHour.get(hour);
  if (offset === undefined) {
    offset = formatVendorTime(hour * HOUR_MS).slice(19);
    offsetByUtcHour.set(hour, offset);
  }
  const sign = offset.startsWith('-') ? -1 : 1;
  const offsetMs = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * 60_000;
  return new Date(wholeMs + offsetMs).toISOString().slice(0, 19) + offset;
}
