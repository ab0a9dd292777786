/**
 * An instant as a person or a client writes one: a date (2026-07-01, taken as UTC midnight) or a
 * full ISO 8601 time with its offset. A time without an offset is refused, never guessed: the same
 * text would name a different instant on a server in another zone.
 */
import { ApiError } from './errors.ts';
import { parseVendorTime } from './vendor-time.ts';

/** Undefined when empty; ApiError 400 naming `label` when not an instant. */
export function parseInstant(text: string | undefined, label: string): number | undefined {
  const raw = text?.trim();
  if (!raw) return undefined;
  const asDate = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw;
  const parsed = parseVendorTime(asDate);
  if (!parsed) throw notAnInstant(label, raw);
  return parsed.ms;
}

/** The same, for a field that must be given: empty is refused as any other non-instant. */
export function requireInstant(text: string | undefined, label: string): number {
  const ms = parseInstant(text, label);
  if (ms === undefined) throw notAnInstant(label, text?.trim() ?? '');
  return ms;
}

function notAnInstant(label: string, raw: string): ApiError {
  return new ApiError(400, 'invalid_request', `${label}: expected a date (2026-07-01) or an ISO 8601 time with offset, got "${raw.slice(0, 40)}"`);
}
