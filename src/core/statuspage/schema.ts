/**
 * Zod schemas for pages in the Atlassian Statuspage v2 format (summary.json, incidents.json,
 * scheduled-maintenances.json). Strict about the envelope (a body that is not such a page changes
 * nothing), tolerant inside it: every field but ids, names, statuses and created_at/updated_at is
 * optional, because Statuspage-compatible pages (incident.io's) leave most of them out; values
 * outside the documented sets are kept as "unknown" with the vendor's own word beside them.
 */
import { z } from 'zod';
import { EARLIEST_VENDOR_TIME_MS } from '../feed-schema.ts';
import { parseVendorTime, type VendorTime } from '../vendor-time.ts';
import { wellFormedPrefix } from '../well-formed-text.ts';

/**
 * Longest body parsed, in UTF-16 code units (at most as many as its UTF-8 bytes): GitHub's full
 * 50-incident list is about 330 kB, DigitalOcean's summary 110 kB. The fetch caps the bytes it reads.
 */
export const STATUSPAGE_BODY_MAX_CHARS = 4 * 1024 * 1024;
/** Entries read from one list; the rest are counted as skipped. incidents.json holds 50. */
export const STATUSPAGE_INCIDENTS_MAX = 200;
export const STATUSPAGE_UPDATES_MAX = 200;
/** DigitalOcean's page has about 300 components; a page of thousands is not a status page. */
export const STATUSPAGE_COMPONENTS_MAX = 2000;
/** Longest text kept of one update body, one name, one status word. */
const BODY_MAX_CHARS = 100_000;
const NAME_MAX_CHARS = 500;
const WORD_MAX_CHARS = 64;
export const STATUSPAGE_ID_MAX_CHARS = 64;

export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved', 'postmortem'] as const;
export const MAINTENANCE_STATUSES = ['scheduled', 'in_progress', 'verifying', 'completed'] as const;
export const IMPACTS = ['none', 'minor', 'major', 'critical', 'maintenance'] as const;
export const COMPONENT_STATUSES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'] as const;

export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export type MaintenanceStatus = (typeof MAINTENANCE_STATUSES)[number];
export type Impact = (typeof IMPACTS)[number];
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];

/** A value of a known set, or "unknown"; `vendor` is the word as the page sent it (lower-cased, cut). */
export type Known<T extends string> = { value: T | 'unknown'; vendor: string };

/** What the admin API says when an address does not serve this format. */
export const NOT_STATUSPAGE_MESSAGE = 'this address does not answer in the Statuspage format';

export class NotStatuspageError extends Error {
  override readonly name = 'NotStatuspageError';
  constructor(readonly detail: string) {
    super(`${NOT_STATUSPAGE_MESSAGE}: ${detail}`);
  }
}

const time = z.string().transform((text, ctx): VendorTime => {
  const parsed = parseVendorTime(text);
  if (!parsed || parsed.ms < EARLIEST_VENDOR_TIME_MS) {
    ctx.addIssue({ code: 'custom', message: `expected an ISO 8601 timestamp with an offset, got ${JSON.stringify(text.slice(0, 64))}` });
    return z.NEVER;
  }
  return parsed;
});
/** Optional times: a broken one reads as absent rather than losing the whole incident. */
const optionalTime = z
  .unknown()
  .optional()
  .transform((value): VendorTime | null => {
    if (typeof value !== 'string') return null;
    const parsed = parseVendorTime(value);
    return parsed && parsed.ms >= EARLIEST_VENDOR_TIME_MS ? parsed : null;
  });

const id = z
  .string()
  .trim()
  .min(1, 'expected an id')
  .max(STATUSPAGE_ID_MAX_CHARS)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'expected an id of letters, digits and _.:-');
const name = z.string().transform((s) => wellFormedPrefix(s.trim(), NAME_MAX_CHARS));
const optionalText = (max: number) =>
  z
    .unknown()
    .optional()
    .transform((value) => (typeof value === 'string' ? wellFormedPrefix(value, max) : ''));

function known<T extends string>(values: readonly T[]) {
  const set = new Set<string>(values);
  return z.string().transform((raw): Known<T> => {
    const vendor = wellFormedPrefix(raw.trim().toLowerCase(), WORD_MAX_CHARS);
    return { value: set.has(vendor) ? (vendor as T) : 'unknown', vendor };
  });
}
const optionalImpact = z
  .unknown()
  .optional()
  .transform((value): Known<Impact> => {
    if (typeof value !== 'string') return { value: 'unknown', vendor: '' };
    const vendor = wellFormedPrefix(value.trim().toLowerCase(), WORD_MAX_CHARS);
    return { value: (IMPACTS as readonly string[]).includes(vendor) ? (vendor as Impact) : 'unknown', vendor };
  });

/** A bounded list whose bad entries are skipped one by one, never failing their parent. */
function tolerantList<T extends z.ZodType>(item: T, max: number) {
  return z
    .unknown()
    .optional()
    .transform((value) => {
      const items = Array.isArray(value) ? value : [];
      const kept: z.output<T>[] = [];
      for (const entry of items.slice(0, max)) {
        const parsed = item.safeParse(entry);
        if (parsed.success) kept.push(parsed.data);
      }
      return { items: kept, skipped: items.length - kept.length };
    });
}

const affectedComponent = z.object({
  // `code` is the component's id; `name` is its name when the update was written.
  code: id,
  name: name.optional(),
  old_status: known(COMPONENT_STATUSES).optional(),
  new_status: known(COMPONENT_STATUSES).optional(),
});

const update = z.object({
  id,
  status: known<string>([...INCIDENT_STATUSES, ...MAINTENANCE_STATUSES]),
  body: optionalText(BODY_MAX_CHARS),
  created_at: time,
  updated_at: optionalTime,
  display_at: optionalTime,
  affected_components: tolerantList(affectedComponent, STATUSPAGE_COMPONENTS_MAX),
  // A 19-digit integer on some pages: past 2^53, so it is only ever kept as text (see parseJsonText).
  tweet_id: z
    .unknown()
    .optional()
    .transform((value) => (typeof value === 'string' && /^\d{1,30}$/.test(value) ? value : null)),
});

const incidentComponent = z.object({ id, name: name.optional() });

const incidentFields = {
  id,
  name,
  created_at: time,
  updated_at: time,
  impact: optionalImpact,
  shortlink: optionalText(NAME_MAX_CHARS),
  started_at: optionalTime,
  monitoring_at: optionalTime,
  resolved_at: optionalTime,
  incident_updates: tolerantList(update, STATUSPAGE_UPDATES_MAX),
  components: tolerantList(incidentComponent, STATUSPAGE_COMPONENTS_MAX),
};

const incident = z.object({ ...incidentFields, status: known(INCIDENT_STATUSES) });
const maintenance = z.object({
  ...incidentFields,
  status: known(MAINTENANCE_STATUSES),
  scheduled_for: optionalTime,
  scheduled_until: optionalTime,
});

const component = z.object({
  id,
  name,
  status: known(COMPONENT_STATUSES),
  position: z
    .unknown()
    .optional()
    .transform((p) => (typeof p === 'number' && Number.isFinite(p) ? p : null)),
  group: z
    .unknown()
    .optional()
    .transform((g) => g === true),
  group_id: z
    .unknown()
    .optional()
    .transform((g) => (typeof g === 'string' && g.length <= STATUSPAGE_ID_MAX_CHARS ? g : null)),
  components: z
    .unknown()
    .optional()
    .transform((ids) => (Array.isArray(ids) ? ids.filter((c): c is string => typeof c === 'string').slice(0, STATUSPAGE_COMPONENTS_MAX) : [])),
  updated_at: optionalTime,
});

const page = z.object({
  id,
  name,
  url: optionalText(NAME_MAX_CHARS),
  time_zone: optionalText(WORD_MAX_CHARS),
  updated_at: optionalTime,
});

const pageStatus = z
  .object({ indicator: known(IMPACTS), description: optionalText(NAME_MAX_CHARS) })
  .optional()
  .transform((s) => s ?? { indicator: { value: 'unknown' as const, vendor: '' }, description: '' });

export type SpUpdate = z.output<typeof update>;
export type SpIncident = z.output<typeof incident>;
export type SpMaintenance = z.output<typeof maintenance>;
export type SpComponent = z.output<typeof component>;
export type SpPage = z.output<typeof page>;

/** The entries of a list, and how many were refused or cut (a bad entry never loses the rest). */
export type SpList<T> = { items: T[]; skipped: number };

export type SpSummary = {
  page: SpPage;
  status: z.output<typeof pageStatus>;
  components: SpList<SpComponent>;
  incidents: SpList<SpIncident>;
  /** Absent on incident.io-compatible pages: an empty list, not "none scheduled" by itself. */
  scheduledMaintenances: SpList<SpMaintenance>;
};
export type SpIncidentsDocument = { page: SpPage; incidents: SpList<SpIncident> };
export type SpMaintenancesDocument = { page: SpPage; scheduledMaintenances: SpList<SpMaintenance> };

// "tweet_id": 1760717163785245000 would be rounded by JSON.parse: quoted first, so it stays exact.
// Inside a JSON string the quotes around the key would be escaped, so body text never matches.
const BIG_TWEET_ID = /("tweet_id"\s*:\s*)(-?\d+)(?=\s*[,}])/g;

/** The body as JSON, bounded, or a NotStatuspageError saying what it was instead. */
export function parseJsonText(text: string): unknown {
  if (text.length > STATUSPAGE_BODY_MAX_CHARS) throw new NotStatuspageError(`the body is longer than ${STATUSPAGE_BODY_MAX_CHARS} characters`);
  if (text.trim() === '') throw new NotStatuspageError('the body is empty');
  try {
    return JSON.parse(text.replace(BIG_TWEET_ID, '$1"$2"'));
  } catch {
    const start = text.trimStart().slice(0, 1);
    throw new NotStatuspageError(start === '<' ? 'the body is HTML, not JSON' : 'the body is not JSON');
  }
}

function envelope(json: unknown, keys: readonly string[]): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new NotStatuspageError(
      `expected an object with ${keys.join(', ')}, got ${Array.isArray(json) ? 'an array' : json === null ? 'null' : `a ${typeof json}`}`,
    );
  }
  const record = json as Record<string, unknown>;
  const missing = keys.filter((key) => !(key in record));
  if (missing.length > 0) throw new NotStatuspageError(`expected an object with ${keys.join(', ')}; ${missing.join(', ')} missing`);
  return record;
}

function readPage(value: unknown): SpPage {
  const parsed = page.safeParse(value);
  if (!parsed.success) throw new NotStatuspageError(`page: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`);
  return parsed.data;
}

function readList<T extends z.ZodType>(value: unknown, item: T, max: number, key: string): SpList<z.output<T>> {
  if (value !== undefined && !Array.isArray(value)) throw new NotStatuspageError(`${key} is not a list`);
  return tolerantList(item, max).parse(value);
}

/** `/api/v2/summary.json`. Throws NotStatuspageError for anything that is not a Statuspage summary. */
export function parseSummary(text: string): SpSummary {
  const json = envelope(parseJsonText(text), ['page', 'components', 'incidents']);
  return {
    page: readPage(json.page),
    status: pageStatus.parse(json.status),
    components: readList(json.components, component, STATUSPAGE_COMPONENTS_MAX, 'components'),
    incidents: readList(json.incidents, incident, STATUSPAGE_INCIDENTS_MAX, 'incidents'),
    scheduledMaintenances: readList(json.scheduled_maintenances, maintenance, STATUSPAGE_INCIDENTS_MAX, 'scheduled_maintenances'),
  };
}

/** `/api/v2/incidents.json` (and `incidents/unresolved.json`). */
export function parseIncidents(text: string): SpIncidentsDocument {
  const json = envelope(parseJsonText(text), ['page', 'incidents']);
  return { page: readPage(json.page), incidents: readList(json.incidents, incident, STATUSPAGE_INCIDENTS_MAX, 'incidents') };
}

/** `/api/v2/scheduled-maintenances.json` (and its upcoming/active variants). */
export function parseMaintenances(text: string): SpMaintenancesDocument {
  const json = envelope(parseJsonText(text), ['page', 'scheduled_maintenances']);
  return {
    page: readPage(json.page),
    scheduledMaintenances: readList(json.scheduled_maintenances, maintenance, STATUSPAGE_INCIDENTS_MAX, 'scheduled_maintenances'),
  };
}
