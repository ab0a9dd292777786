/**
 * Which service names statuswatch knows: the vendor's list and every name the archive has seen. A
 * name outside them is answered as unknown, never as "operational".
 */
import { VENDOR_SERVICES } from './service-days.ts';

/**
 * At most this many names are read from the archive. The vendor has used 15 in all; the bound only
 * keeps a feed that invents names from growing the list, the cache and every error detail.
 */
export const KNOWN_SERVICES_MAX = 500;

/** The vendor's current services, then the names only its past incidents use (developer-interface.md). */
export const DOCUMENTED_SERVICES: readonly string[] = [...VENDOR_SERVICES, 'Connections', 'Posts/Files', 'Calls', 'Link Previews'];

/** The documented names first (in the vendor's order), then any other the archive has recorded. */
export function mergeKnownServices(archived: readonly string[]): string[] {
  return [...new Set([...DOCUMENTED_SERVICES, ...archived])];
}

/** The names asked for that are not known, in the order asked, each once. */
export function unknownServices(asked: readonly string[] | undefined, known: readonly string[]): string[] {
  if (!asked) return [];
  const knownSet = new Set(known);
  return [...new Set(asked.filter((name) => !knownSet.has(name)))];
}

/** A known name that differs only in case or surrounding spaces: `files` suggests `Files`. */
export function suggestService(name: string, known: readonly string[]): string | null {
  const folded = name.trim().toLowerCase();
  return known.find((candidate) => candidate.toLowerCase() === folded) ?? null;
}

/** The detail of an `unknown_service` error: what came, a near miss if any, and what is known. */
export function unknownServiceDetail(field: string, unknown: readonly string[], known: readonly string[]): string {
  const shown = unknown.slice(0, 5).map((name) => {
    const quoted = JSON.stringify(name.slice(0, 64));
    const suggestion = suggestService(name, known);
    return suggestion ? `${quoted} (did you mean ${suggestion}?)` : quoted;
  });
  const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : '';
  return `${field}: unknown service ${shown.join(', ')}${more}; names are exact and case-sensitive, known: ${known.join(', ')}`;
}
