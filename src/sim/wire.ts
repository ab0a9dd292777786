/** Renders feed views into the vendor's exact bytes, in the key order of either era. */
import type { CurrentV1View, CurrentV2View } from './feed-views.ts';
import { encodePhpJson } from './php-json.ts';
import { formatVendorTime } from './vendor-time-format.ts';
import type { SimIncident, SimNote } from './world.ts';

/** `modern`: the 2026 feed. `legacy`: 2019–2023 (other key order, notes newest first). */
export type FeedStyle = 'modern' | 'legacy';

/** A rendered body and the instant for its Last-Modified header (null when nothing dates it). */
export type FeedDocument = { body: string; lastModifiedMs: number | null };

type WireOptions = { style: FeedStyle; idAsString: boolean };

// Key order is built by insertion: JSON.stringify keeps it for non-numeric keys.
function wireNotes(notes: readonly SimNote[], style: FeedStyle): Record<string, string>[] {
  const oldestFirst = [...notes].sort((a, b) => a.dateCreatedMs - b.dateCreatedMs);
  if (style === 'modern') {
    return oldestFirst.map((n) => ({ body: n.body, date_created: formatVendorTime(n.dateCreatedMs) }));
  }
  return oldestFirst.reverse().map((n) => ({ date_created: formatVendorTime(n.dateCreatedMs), body: n.body }));
}

/** One incident as the vendor serialises it. */
export function toWireIncident(incident: SimIncident, options: WireOptions): Record<string, unknown> {
  const id = options.idAsString ? String(incident.id) : incident.id;
  const created = formatVendorTime(incident.dateCreatedMs);
  const updated = formatVendorTime(incident.dateUpdatedMs);
  const notes = wireNotes(incident.notes, options.style);
  const { title, type, status, url, services } = incident;
  if (options.style === 'modern') {
    return { id, title, type, status, url, date_created: created, date_updated: updated, notes, services };
  }
  return { id, date_created: created, date_updated: updated, title, type, status, url, services, notes };
}

const maxUpdated = (incidents: readonly SimIncident[]): number | null => (incidents.length === 0 ? null : Math.max(...incidents.map((i) => i.dateUpdatedMs)));

export function renderCurrentV2(view: CurrentV2View, style: FeedStyle): FeedDocument {
  const body = encodePhpJson({
    status: view.status,
    date_created: formatVendorTime(view.dateCreatedMs),
    date_updated: formatVendorTime(view.dateUpdatedMs),
    active_incidents: view.active.map((i) => toWireIncident(i, { style, idAsString: false })),
  });
  return { body, lastModifiedMs: maxUpdated(view.active) ?? view.dateUpdatedMs };
}

/** v1 sends the incident flat, with `id` as a string as the real v1 did ("622"). */
export function renderCurrentV1(view: CurrentV1View, style: FeedStyle): FeedDocument {
  if (view.kind === 'incident') {
    const body = encodePhpJson(toWireIncident(view.incident, { style, idAsString: true }));
    return { body, lastModifiedMs: view.incident.dateUpdatedMs };
  }
  const body = encodePhpJson({
    status: 'ok',
    date_created: formatVendorTime(view.dateCreatedMs),
    date_updated: formatVendorTime(view.dateUpdatedMs),
  });
  return { body, lastModifiedMs: view.dateUpdatedMs };
}

/** History is a bare array; the v1 and v2 bodies were byte-identical in real captures. */
export function renderHistory(incidents: readonly SimIncident[], style: FeedStyle): FeedDocument {
  const body = encodePhpJson(incidents.map((i) => toWireIncident(i, { style, idAsString: false })));
  return { body, lastModifiedMs: maxUpdated(incidents) };
}
