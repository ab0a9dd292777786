/** The zod schemas the JSON API's requests are read with and its answers described by: one source for the code and /openapi.json. */
import { z } from 'zod';
import { INCIDENT_TOTAL_MAX } from '../../app/incident-search.ts';
import { ARCHIVE_LEFT_CAP, SOURCE_NAME_MAX_CHARS, SOURCE_URL_MAX_CHARS } from '../../app/sources.ts';
import { EVENT_TYPES } from '../../core/events.ts';
import { OPSGENIE_REGIONS, type OpsgenieRegion } from '../../core/subscription.ts';

export { INCIDENT_TOTAL_MAX };

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The spec: invalid limits are adjusted silently, never refused; so the schema accepts any text. */
export const limitParamSchema = z
  .string()
  .optional()
  .describe(`Page size, ${DEFAULT_LIMIT} by default, at most ${MAX_LIMIT}; anything else is adjusted, never refused.`)
  .transform((raw) => {
    const n = Number(raw);
    if (raw === undefined || raw.trim() === '' || !Number.isFinite(n) || n < 1) return DEFAULT_LIMIT;
    return Math.min(Math.floor(n), MAX_LIMIT);
  });

export const cursorParamSchema = z.string().optional().describe('The `next_cursor` of the previous page; an invalid one is `invalid_cursor`.');
export const instantParamSchema = z.string().optional().describe('A date (2026-07-01, taken as UTC midnight) or an ISO 8601 time with offset.');
export const listParamSchema = z.string().optional().describe('One value, several separated by commas, or the parameter repeated.');
/** `?type=` of the event log. */
export const eventTypesParamSchema = z
  .string()
  .optional()
  .describe(`Event types (${EVENT_TYPES.join(', ')}): one, several separated by commas, or the parameter repeated.`);

/** The one error shape of every refusal. */
export const apiErrorSchema = z.object({
  ok: z.literal(false),
  error: z.string().describe('A stable code: invalid_request, invalid_cursor, unauthorized, ...'),
  detail: z.string().describe('What was expected and what came, for a person.'),
});

export const pageMetadataSchema = z.object({
  next_cursor: z.string().describe('Empty on the last page.'),
});

const isoTime = z.string().describe('ISO 8601 time, UTC');

const sourceField = z.string().describe('The source it came from: a source id as GET /api/sources lists them, or "main" for the main feed.');
export const apiEventSchema = z.looseObject({
  id: z.string(),
  type: z.string().describe(`One of ${EVENT_TYPES.join(', ')}.`),
  incident_id: z
    .string()
    .nullable()
    .optional()
    .describe('Null for a monitor event (monitor.*) and for a watched page’s component.status_changed, which concern no incident.'),
  source: sourceField,
});
export const apiIncidentSchema = z.looseObject({ id: z.string(), title: z.string(), status: z.string(), type: z.string(), source: sourceField });
/** `?source=`: one source's incidents or events. */
export const sourceParamSchema = z.string().optional().describe('Only this source: a source id, or "main" for the main feed.');
/** `?source=` where the answer is one source's state: a source that is not watched is a 404. */
export const watchedSourceParamSchema = z
  .string()
  .optional()
  .describe(
    'A watched status page’s id (src_..., as GET /api/sources lists them) for that page’s answer, which names it; absent or "main": the vendor’s. 404 source_not_found when no such page is watched, 400 when malformed.',
  );
export const apiSubscriptionSchema = z.looseObject({
  id: z.string(),
  channel: z.string(),
  url_host: z.string().optional().describe('teams and discord: the host of the URL, which is a secret (it authorizes posting) and never shown.'),
  region: z
    .enum(OPSGENIE_REGIONS as [OpsgenieRegion, ...OpsgenieRegion[]])
    .optional()
    .describe('opsgenie: the region of the account. An on-call subscription’s key is never shown.'),
  status: z.string(),
  created_at: isoTime,
  updated_at: isoTime,
});
export const apiDeliverySchema = z.looseObject({ id: z.number().int(), subscription_id: z.string(), state: z.string(), attempts: z.number().int() });
export const apiPollRunSchema = z.looseObject({ id: z.string() });

const ok = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ ok: z.literal(true), ...shape });

export const incidentListSchema = ok({
  incidents: z.array(apiIncidentSchema),
  response_metadata: pageMetadataSchema,
  total: z
    .number()
    .int()
    .describe(`Incidents the filters match on every page, counted up to ${INCIDENT_TOTAL_MAX.toLocaleString('en-US')}; a floor when total_exact is false.`),
  total_exact: z
    .boolean()
    .describe('False when the count stopped at its bound, or when the search words matched more incidents than one request examines: at least `total`.'),
});
export const incidentDetailSchema = ok({ incident: apiIncidentSchema, events: z.array(apiEventSchema) });
export const incidentVersionsSchema = ok({ versions: z.array(z.looseObject({ revision: z.number().int(), recorded_at: isoTime })) });
export const eventListSchema = ok({ events: z.array(apiEventSchema), response_metadata: pageMetadataSchema, resume_cursor: z.string() });
export const subscriptionListSchema = ok({ subscriptions: z.array(apiSubscriptionSchema), response_metadata: pageMetadataSchema });
export const subscriptionOneSchema = ok({ subscription: apiSubscriptionSchema, secret: z.string().optional() });
export const deliveryListSchema = ok({ deliveries: z.array(apiDeliverySchema), response_metadata: pageMetadataSchema });
export const deliveryOneSchema = ok({ delivery: apiDeliverySchema });
export const replayedSchema = ok({ replayed: z.number().int() });
export const okSchema = ok({});
export const pollListSchema = ok({ polls: z.array(apiPollRunSchema), response_metadata: pageMetadataSchema });
export const pollOneSchema = ok({ poll: apiPollRunSchema, rejected_payloads: z.array(z.looseObject({})) });
/** One source's poll: `skipped` (with a reason) when another poll of it holds its lease. */
export const apiSourcePollSchema = z.looseObject({
  source: z.string(),
  outcome: z.enum(['ok', 'failed', 'skipped']),
  unchanged: z.boolean().optional().describe('The summary was not modified, so nothing else was read.'),
  events: z.array(apiEventSchema).optional(),
  component_changes: z.array(z.looseObject({ id: z.string(), name: z.string(), from: z.string().nullable(), to: z.string() })).optional(),
  error: z.string().optional(),
});
export const pollResultSchema = z.union([
  ok({
    outcome: z.string(),
    run: apiPollRunSchema,
    events: z.array(apiEventSchema),
    sources: z.array(apiSourcePollSchema).describe('Each source polled beside the main feed (none with ?source=main).'),
  }),
  ok({ sources: z.array(apiSourcePollSchema).describe('With ?source=ID of a source: that source alone.') }),
]);
export const healthSchema = z.looseObject({ ok: z.boolean(), status: z.enum(['ok', 'starting', 'stale']), consecutive_failures: z.number().int() });
export const testSendSchema = z.looseObject({ ok: z.boolean(), results: z.array(z.looseObject({ event_type: z.string(), ok: z.boolean() })) });
/** An installation of the workspace app: never a token, only what the admin decides by. */
export const apiInstallationSchema = z.looseObject({
  id: z.string(),
  team_id: z.string(),
  bot_user_id: z.string(),
  scopes: z.array(z.string()),
  state: z.enum(['active', 'broken', 'uninstalled']),
  reason: z.string().nullable().describe('Why it is broken or uninstalled: the vendor’s error code, or the admin’s uninstall.'),
  access_token_expires_at: isoTime.nullable().describe('When the current access token expires; it is refreshed before. Null once uninstalled.'),
  updated_at: isoTime,
});
/** A pasted long-lived token, exchanged once (oauth.v2.exchange). */
export const installFromTokenSchema = z.strictObject({
  token: z
    .string({ error: 'token must be the long-lived bot token, as a string' })
    .trim()
    .min(1, 'token must not be empty')
    .max(500, 'token is at most 500 characters')
    .regex(/^[\x21-\x7e]+$/, 'token must be printable characters without spaces'),
});
export const installationOneSchema = ok({ installation: apiInstallationSchema });
export const installationListSchema = ok({ installations: z.array(apiInstallationSchema) });
export const conversationListSchema = ok({
  conversations: z.array(z.looseObject({ id: z.string(), name: z.string(), is_private: z.boolean(), is_archived: z.boolean(), is_member: z.boolean() })),
  response_metadata: pageMetadataSchema,
});
/** The vendor's own shapes, as the vendor documents them (spec/developer-interface.md). */
export const vendorCurrentSchema = z.looseObject({ status: z.string() });
export const vendorHistorySchema = z.array(z.looseObject({ id: z.number(), title: z.string() }));
export const looseJsonSchema = z.looseObject({});

/** `POST /api/delivery-replays`: `since` is read as an instant by the replay itself (app/delivery-replay.ts). */
export const replayRequestSchema = z.strictObject({
  since: z.string({ error: 'since must be a date or an ISO 8601 time with offset' }),
  subscription: z.string().optional(),
  state: z.enum(['pending', 'done', 'dead']).optional(),
});

/** The body of POST /api/admin/sources (also in /openapi.json). */
export const newSourceBody = z.object({
  kind: z.literal('statuspage', { error: 'the only kind of source is "statuspage"' }),
  url: z
    .string({ error: 'expected the page\'s address, such as "https://www.githubstatus.com"' })
    .trim()
    .min(1, 'must not be empty')
    .max(SOURCE_URL_MAX_CHARS, `at most ${SOURCE_URL_MAX_CHARS} characters`),
  name: z
    .string({ error: 'expected a text' })
    .trim()
    .min(1, 'must not be empty')
    .max(SOURCE_NAME_MAX_CHARS, `at most ${SOURCE_NAME_MAX_CHARS} characters`)
    .optional(),
});

/** A source in the API (also in /openapi.json). */
export const apiSourceSchema = z.object({
  id: z.string().describe('"main" for the vendor feed set by STATUS_URL'),
  kind: z.enum(['vendor-feed', 'statuspage']),
  name: z.string(),
  url: z.string(),
  created_at: z.string().nullable(),
  state: z.enum(['known', 'reads_failing', 'unknown']).describe('unknown: never read yet, or its last good read is too old to say how things stand now'),
  last_success_at: z.string().nullable(),
  consecutive_failures: z.number().int(),
});

/** The answer to DELETE /api/admin/sources/:id (also in /openapi.json). */
export const sourceRemovedSchema = z.union([
  z.object({ ok: z.literal(true), archive: z.literal('kept') }),
  z.object({ ok: z.literal(true), archive: z.literal('deleted') }),
  z.object({
    ok: z.literal(true),
    archive: z.literal('deleting'),
    left: z
      .object({ incidents: z.number().int(), events: z.number().int() })
      .describe(`what is left of the archive, each counted up to ${ARCHIVE_LEFT_CAP}; retention deletes it within its next runs`),
  }),
]);
