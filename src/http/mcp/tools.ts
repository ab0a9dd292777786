/**
 * The five tools of statuswatch's MCP server, each with a zod input schema and a
 * description an agent can act on. They answer from the same archive reads, limits and cursors as
 * the HTTP API, so a tool and its endpoint never disagree.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CursorCodec } from '../../core/cursor.ts';
import { ApiError } from '../../core/errors.ts';
import { parseInstant } from '../../core/instant.ts';
import { incidentHistory, incidentNotFound } from '../../app/incident-history.ts';
import { feedKnowledge } from '../../app/feed-knowledge.ts';
import { type McpScope, TOOL_SCOPES } from '../../core/mcp-scopes.ts';
import type { ArchiveQueries, ArchiveReads, Clock } from '../../core/ports.ts';
import { AVAILABILITY_WINDOWS_DAYS, type Reliability } from '../../core/reliability.ts';
import { SEARCH_LIMITS } from '../../core/search-query.ts';
import { WIDGET_SERVICES_MAX } from '../../core/widget-state.ts';
import { iso } from '../api-json.ts';
import { type CursorList, isSequence, isWhole, logPageAfter, readPosition } from '../../app/cursor-page.ts';
import { currentStatus } from '../../app/current-status.ts';
import { searchIncidents } from '../../app/incident-search.ts';
import { requireKnownServices, type ServiceNamesOfSource } from '../../app/known-services.ts';
import { type SourceReliabilityStore, sourceReliability } from '../../app/reliability-figures.ts';
import { pageLimit, sourceId } from '../query-params.ts';
import { MAIN_FEED_SOURCE, sourceOfIncidentId } from '../../core/statuspage/mapping.ts';
import { currentStatusAnswer, incidentAnswer, incidentPageAnswer, recentChangesAnswer, refusal, reliabilityAnswer, type ToolAnswer } from './tool-answers.ts';

export type McpToolDeps = {
  store: ArchiveQueries & Pick<ArchiveReads, 'archiveGeneration'> & SourceReliabilityStore;
  clock: Clock;
  cursors: CursorCodec;
  known: ServiceNamesOfSource;
  reliability: () => Promise<Reliability>;
  /** PUBLIC_URL, or the request's own origin: every link an answer carries starts with it. */
  baseUrl: string;
};

/** recent_changes without `since`: the last day. */
const RECENT_DEFAULT_MS = 24 * 3600_000;
const WINDOWS = AVAILABILITY_WINDOWS_DAYS.map((days) => `${days}d`) as [string, ...string[]];
/** Where a page of recent_changes ends: the last event's sequence number, and the `since` its first page was asked with. */
const RECENT_CHANGES: CursorList<{ seq: number; since: number }> = {
  name: 'recent_changes',
  fields: ({ seq, since }) => ({ s: seq, t: since }),
  position: ({ s, t }) => (typeof s === 'number' && isSequence(s) && typeof t === 'number' && isWhole(t) ? { seq: s, since: t } : null),
};

/** A list as the API takes it: an array, or one text with commas (`Files,Messaging`). */
const nameList = (what: string) =>
  z
    .union([z.string().max(2000), z.array(z.string().max(200)).max(50)])
    .optional()
    .describe(`${what}: exact names, as an array or comma-separated`);
const listOf = (value: string | string[] | undefined, normalise: (v: string) => string = (v) => v): string[] | undefined => {
  const values = (Array.isArray(value) ? value : (value?.split(',') ?? [])).map((v) => normalise(v.trim())).filter(Boolean);
  return values.length > 0 ? [...new Set(values)] : undefined;
};
const instant = z.string().max(40).optional();
const limit = z.number().int().optional().describe('Page size (100 by default, at most 1000; searches at most 100). Anything else is adjusted, never refused.');
const cursor = z.string().max(2000).optional().describe('next_cursor of the previous answer, to get the next page.');
/** The source a tool answers for, as `?source=` is on the HTTP faces. */
const source = (what: string) =>
  z.string().max(80).optional().describe(`${what}: a watched status page's id (src_..., as GET /api/sources lists them), or "main" for the vendor's own feed.`);

/** Runs a tool body; the API's refusals (bad cursor, unknown service, search too broad) become tool errors. */
async function guarded(run: () => Promise<ToolAnswer>): Promise<ToolAnswer> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError) return refusal(error.code, error.detail);
    throw error;
  }
}

/** Registers the tools `scopes` open; with fewer scopes, fewer tools are listed and callable. */
export function registerTools(server: McpServer, deps: McpToolDeps, scopes: readonly McpScope[]): void {
  const { store, clock, cursors, known, baseUrl } = deps;
  const allowed = (tool: keyof typeof TOOL_SCOPES) => scopes.includes(TOOL_SCOPES[tool]);
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

  if (allowed('current_status')) {
    server.registerTool(
      'current_status',
      {
        title: 'Current status',
        description:
          "Is the vendor down right now? The state of its services (ok, maintenance, notice, incident, outage) and the incidents going on. Give `services` to ask about some only. Says 'unknown' when statuswatch has not read the vendor's feed lately, or does not know a service name.",
        inputSchema: z.object({
          services: nameList(`Services to ask about, at most ${WIDGET_SERVICES_MAX}`),
          source: source("Whose status: the vendor's when absent"),
        }),
        annotations: readOnly,
      },
      ({ services: asked, source: askedSource }) =>
        guarded(async () => {
          const services = listOf(asked)?.slice(0, WIDGET_SERVICES_MAX);
          const widget = await currentStatus({ store, clock }, { services, baseUrl, nowMs: clock.now(), source: sourceId(askedSource) });
          return currentStatusAnswer(widget);
        }),
    );
  }

  if (allowed('search_incidents')) {
    server.registerTool(
      'search_incidents',
      {
        title: 'Search incidents',
        description:
          'Search the archive of the vendor\'s incidents, newest first: words in titles and notes (q), services, types (incident, notice, outage), statuses, and a time range on when they began. For "what broke in Files last quarter": service=Files, since and until. Pages with cursor.',
        inputSchema: z.object({
          q: z
            .string()
            .max(1000)
            .optional()
            .describe(`Words to find (all of them; the last may be the start of a word). At most ${SEARCH_LIMITS.maxWords} words.`),
          service: nameList('Services'),
          type: nameList('Types: incident, notice, outage'),
          status: nameList('Statuses: active, resolved, scheduled, completed, cancelled, ok'),
          since: instant.describe('Began at or after: a date (2026-07-01, UTC) or an ISO 8601 time with offset.'),
          until: instant.describe('Began before: a date or an ISO 8601 time with offset.'),
          source: source('Only the incidents of this source; every source when absent'),
          limit,
          cursor,
        }),
        annotations: readOnly,
      },
      (input) =>
        guarded(async () => {
          const filter = {
            source: sourceId(input.source),
            services: listOf(input.service),
            types: listOf(input.type, (v) => v.toLowerCase()),
            statuses: listOf(input.status, (v) => v.toLowerCase()),
            sinceMs: parseInstant(input.since, 'since'),
            untilMs: parseInstant(input.until, 'until'),
          };
          const page = await searchIncidents(
            { store, cursors, known },
            { filter, query: input.q, limit: pageLimit(input.limit === undefined ? undefined : String(input.limit)), cursor: input.cursor },
          );
          return incidentPageAnswer(page.incidents, page.nextCursor, page.total, baseUrl, dashboardSearchUrl(baseUrl, input));
        }),
    );
  }

  if (allowed('get_incident')) {
    server.registerTool(
      'get_incident',
      {
        title: 'Get an incident',
        description: 'One incident of the archive by its id: every note the vendor posted (as plain text), and each change statuswatch recorded, oldest first.',
        inputSchema: z.object({
          id: z.string().min(1).max(64).describe('The incident id, as search_incidents gives it.'),
          source: source('The source it must belong to; any source when absent'),
        }),
        annotations: readOnly,
      },
      ({ id, source: askedSource }) =>
        guarded(async () => {
          const wanted = sourceId(askedSource);
          // An incident of another source is not found in this one: its id says whose it is.
          const found = wanted === undefined || sourceOfIncidentId(id) === wanted ? await incidentHistory(store, id) : null;
          if (!found) throw incidentNotFound(id);
          return incidentAnswer(found.incident, found.events, baseUrl);
        }),
    );
  }

  if (allowed('reliability')) {
    server.registerTool(
      'reliability',
      {
        title: 'Reliability',
        description: `The vendor's track record, or a watched status page's: availability per service over a rolling window (${WINDOWS.join(' or ')}), its incidents and downtime, and monthly times to resolve. Time without data counts neither way.`,
        inputSchema: z.object({
          service: z.string().max(200).optional().describe("One service (a watched page's: one of its components); all of them when absent."),
          source: source("The track record of this source; the vendor's own when absent"),
          window: z
            .enum(WINDOWS)
            .optional()
            .describe(`The rolling window, ${WINDOWS.at(-1)} by default.`),
        }),
        annotations: readOnly,
      },
      ({ service, window, source: askedSource }) =>
        guarded(async () => {
          const services = service ? [service.trim()] : [];
          const days = Number((window ?? WINDOWS.at(-1)!).replace('d', ''));
          const wanted = sourceId(askedSource);
          if (wanted === undefined || wanted === MAIN_FEED_SOURCE) {
            await requireKnownServices(() => known(MAIN_FEED_SOURCE), 'service', services);
            return reliabilityAnswer(await deps.reliability(), services, days, baseUrl, null);
          }
          // The same figures as /api/reliability?source=: the page's components are its services.
          const found = await sourceReliability(store, wanted, clock.now());
          await requireKnownServices(async () => found.figures.services.map((s) => s.service), 'service', services);
          return reliabilityAnswer(found.figures, services, days, baseUrl, { id: found.source.id, name: found.source.name });
        }),
    );
  }

  if (allowed('recent_changes')) {
    server.registerTool(
      'recent_changes',
      {
        title: 'Recent changes',
        description:
          'What changed since a time, oldest first: incidents opened, updated, given a note, resolved, and the monitor losing or regaining the feed. The last 24 hours when `since` is absent. Says so when the feed was not read lately (later changes unknown).',
        inputSchema: z.object({ since: instant.describe('A date (2026-07-01, UTC) or an ISO 8601 time with offset.'), limit, cursor }),
        annotations: readOnly,
      },
      (input) =>
        guarded(async () => {
          const now = clock.now();
          const resumed = await readPosition(cursors, RECENT_CHANGES, input.cursor);
          const since = resumed ? resumed.since : (parseInstant(input.since, 'since') ?? now - RECENT_DEFAULT_MS);
          const pageSize = pageLimit(input.limit === undefined ? undefined : String(input.limit));
          const { page: events, next } = await logPageAfter(
            cursors,
            RECENT_CHANGES,
            resumed,
            { seq: 0, since },
            pageSize,
            // Backfill is the archive being seeded, not something that changed.
            (after, n) => store.listEvents({ detectedSinceMs: since, includeBackfill: false }, after.seq, n),
            (event) => ({ seq: event.seq, since }),
          );
          const { health, knowledge } = await feedKnowledge({ store }, now);
          const feed = { stale: knowledge.kind !== 'known', last_read_at: iso(health.lastSuccessAt) };
          return recentChangesAnswer(events, since, next, feed, baseUrl);
        }),
    );
  }
}

/** The same search on the dashboard's incidents page. */
function dashboardSearchUrl(
  baseUrl: string,
  input: { q?: string; service?: string | string[]; type?: string | string[]; status?: string | string[]; since?: string; until?: string; source?: string },
): string {
  const params = new URLSearchParams();
  const add = (name: string, value: string | string[] | undefined) => {
    for (const v of listOf(value) ?? []) params.append(name, v);
  };
  if (input.q?.trim()) params.set('q', input.q.trim());
  add('service', input.service);
  add('type', input.type);
  add('status', input.status);
  if (input.source?.trim()) params.set('source', input.source.trim());
  if (input.since?.trim()) params.set('since', input.since.trim());
  if (input.until?.trim()) params.set('until', input.until.trim());
  const query = params.toString();
  return `${baseUrl}/incidents${query ? `?${query}` : ''}`;
}
