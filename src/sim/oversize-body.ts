/** Builds valid-looking feed bodies of 12 MB, for clients that must cap what they read. */
import type { FeedEndpoint } from './feed-views.ts';
import { encodePhpJson } from './php-json.ts';
import { formatVendorTime } from './vendor-time-format.ts';

export const OVERSIZE_BYTES = 12 * 1024 * 1024;

const FILLER_MS = Date.UTC(2026, 0, 15, 18, 0, 0);
const FILLER_NOTE = {
  body: `<p>${'We\u2019re continuing to investigate elevated error rates.&nbsp;<br>'.repeat(12)}</p>`,
  date_created: formatVendorTime(FILLER_MS),
};

function fillerIncident(id: number, notes: number): Record<string, unknown> {
  return {
    id,
    title: 'Elevated error rates',
    type: 'incident',
    status: 'active',
    url: `https://slack-status.com/2026-01/${id.toString(16).padStart(16, '0')}`,
    date_created: formatVendorTime(FILLER_MS),
    date_updated: formatVendorTime(FILLER_MS),
    notes: Array.from({ length: notes }, () => FILLER_NOTE),
    services: ['Messaging'],
  };
}

/**
 * The JSON of `value` with `[]` at `key` filled by `items`, already encoded: the same bytes as
 * encoding it with those items, without encoding 12 MB of the same note again and again (seconds
 * on a loaded machine, while a client's timeout runs).
 */
function withItems(value: Record<string, unknown>, key: string, items: string): string {
  // A function, not a replacement string: that would be scanned for `$` patterns, 12 MB of it.
  return encodePhpJson({ ...value, [key]: [] }).replace(`"${key}":[]`, () => `"${key}":[${items}]`);
}

function build(endpoint: FeedEndpoint): Uint8Array<ArrayBuffer> {
  const note = encodePhpJson(FILLER_NOTE);
  const count = Math.ceil(OVERSIZE_BYTES / (note.length + 1)) + 1;
  const notes = (n: number) => new Array<string>(n).fill(note).join(',');
  let text: string;
  if (endpoint === 'v1/current') {
    // v1 is one flat incident, so the bulk goes into its notes.
    text = withItems({ ...fillerIncident(1, 0), id: '1' }, 'notes', notes(count));
  } else {
    const perIncident = 64;
    const perIncidentNotes = notes(perIncident);
    const incidents = Array.from({ length: Math.ceil(count / perIncident) }, (_, i) => withItems(fillerIncident(i + 1, 0), 'notes', perIncidentNotes)).join(
      ',',
    );
    const at = formatVendorTime(FILLER_MS);
    text = endpoint === 'v2/current' ? withItems({ status: 'active', date_created: at, date_updated: at }, 'active_incidents', incidents) : `[${incidents}]`;
  }
  return new TextEncoder().encode(text);
}

const cache = new Map<FeedEndpoint, Uint8Array<ArrayBuffer>>();

/** Cached per endpoint: building one takes a moment and clients may retry. */
export function oversizeBody(endpoint: FeedEndpoint): Uint8Array<ArrayBuffer> {
  let body = cache.get(endpoint);
  if (!body) {
    body = build(endpoint);
    cache.set(endpoint, body);
  }
  return body;
}
