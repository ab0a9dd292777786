/** Reads an HTTP Retry-After header as a delay, given the time now. */

/**
 * Retry-After as a delay in ms: a whole number of seconds, or an HTTP-date (a date in the past
 * means now). Null when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // Only dates that look like dates: Date.parse would otherwise accept things like "1".
  if (!/[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
