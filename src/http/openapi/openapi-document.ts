/** The OpenAPI 3.1 document of the JSON API, generated from the zod schemas in api-schemas.ts (never written by hand). */
import { z } from 'zod';
import { createSubscriptionSchema, updateSubscriptionSchema } from '../../core/subscription.ts';
import { newTokenBody } from '../routes/mcp-tokens.ts';
import * as s from './api-schemas.ts';
import { groupOperations, groupSubscriptionBody } from './group-operations.ts';

type Method = 'get' | 'post' | 'patch' | 'delete';
type QueryParam = { name: string; schema: z.ZodType };

/** One operation of the API: what the document says, and what the route test checks is served. */
export type ApiOperation = {
  method: Method;
  /** Hono's form (`:id`); the document gets OpenAPI's (`{id}`). */
  path: string;
  summary: string;
  admin?: boolean;
  query?: QueryParam[];
  /**
   * What a GET with a query parameter not in `query` gets: refused (400) by default; the vendor
   * mirror ignores them, as the vendor does (read-params.ts).
   */
  unknownQuery?: 'refuse' | 'ignore';
  body?: z.ZodType;
  ok: { status: number; schema: z.ZodType };
};

const page = (...extra: QueryParam[]): QueryParam[] => [
  { name: 'limit', schema: s.limitParamSchema },
  { name: 'cursor', schema: s.cursorParamSchema },
  ...extra,
];

const vendorMirror = (version: string, label: string): ApiOperation[] => [
  {
    method: 'get',
    path: `/api${version}/current`,
    summary: `Vendor mirror: current status (${label})`,
    unknownQuery: 'ignore',
    ok: { status: 200, schema: s.vendorCurrentSchema },
  },
  {
    method: 'get',
    path: `/api${version}/history`,
    summary: `Vendor mirror: about six months of history (${label})`,
    unknownQuery: 'ignore',
    ok: { status: 200, schema: s.vendorHistorySchema },
  },
];

const mcpTokenSchema = z.object({ id: z.string(), label: z.string(), created_at: z.string() });

export const API_OPERATIONS: ApiOperation[] = [
  { method: 'get', path: '/healthz', summary: 'Health: 503 once the feed has not been read for five minutes', ok: { status: 200, schema: s.healthSchema } },
  { method: 'get', path: '/openapi.json', summary: 'This document', ok: { status: 200, schema: s.looseJsonSchema } },
  {
    method: 'get',
    path: '/widget.json',
    summary: 'The embeddable widget’s status (the same parameters on /badge.svg, /embed and the feeds /feed.atom, /feed.rss, /feed.json)',
    query: [
      { name: 'service', schema: s.listParamSchema },
      { name: 'source', schema: s.watchedSourceParamSchema },
    ],
    unknownQuery: 'ignore',
    ok: { status: 200, schema: s.looseJsonSchema },
  },
  {
    method: 'get',
    path: '/api/reliability',
    summary: 'The vendor’s track record, or a watched status page’s',
    query: [{ name: 'source', schema: s.watchedSourceParamSchema }],
    ok: { status: 200, schema: s.looseJsonSchema },
  },
  {
    method: 'get',
    path: '/api/incidents',
    summary: 'Incidents, newest first: filtered, searchable, cursor-paginated',
    query: page(
      { name: 'service', schema: s.listParamSchema },
      { name: 'type', schema: s.listParamSchema },
      { name: 'status', schema: s.listParamSchema },
      { name: 'since', schema: s.instantParamSchema },
      { name: 'until', schema: s.instantParamSchema },
      { name: 'q', schema: z.string().optional().describe('Words to search for') },
      { name: 'source', schema: s.sourceParamSchema },
    ),
    ok: { status: 200, schema: s.incidentListSchema },
  },
  { method: 'get', path: '/api/incidents/:id', summary: 'One incident with its history', ok: { status: 200, schema: s.incidentDetailSchema } },
  {
    method: 'get',
    path: '/api/incidents/:id/versions',
    summary: 'Every recorded version of an incident',
    ok: { status: 200, schema: s.incidentVersionsSchema },
  },
  {
    method: 'get',
    path: '/api/events',
    summary: 'The event log, oldest first',
    query: page(
      { name: 'type', schema: s.eventTypesParamSchema },
      { name: 'incident', schema: z.string().optional() },
      { name: 'source', schema: s.sourceParamSchema },
      { name: 'include_backfill', schema: z.enum(['true', 'false']).optional() },
    ),
    ok: { status: 200, schema: s.eventListSchema },
  },
  ...vendorMirror('/v2.0.0', 'v2'),
  ...vendorMirror('/v1.0.0', 'v1'),
  ...vendorMirror('', 'v1, unversioned'),
  {
    method: 'post',
    path: '/api/admin/poll',
    summary: 'Poll the feed and every source now',
    admin: true,
    query: [{ name: 'source', schema: z.string().optional().describe('Poll this source alone ("main": the main feed alone).') }],
    ok: { status: 200, schema: s.pollResultSchema },
  },
  {
    method: 'get',
    path: '/api/admin/polls',
    summary: 'Poll runs, newest first',
    admin: true,
    query: page({ name: 'before', schema: z.string().optional().describe('Without a cursor: the runs that started before this epoch ms.') }),
    ok: { status: 200, schema: s.pollListSchema },
  },
  { method: 'get', path: '/api/admin/polls/:id', summary: 'One poll run and the bodies it refused', admin: true, ok: { status: 200, schema: s.pollOneSchema } },
  {
    method: 'post',
    path: '/api/subscriptions',
    summary:
      'Create a subscription (email to an address or to a SCIM group’s members, webhook, team-chat channel, workspace app, PagerDuty, Opsgenie, Microsoft Teams or Discord)',
    admin: true,
    body: z.union([createSubscriptionSchema({ allowPlainHttp: false }), groupSubscriptionBody]),
    ok: { status: 201, schema: s.subscriptionOneSchema },
  },
  {
    method: 'get',
    path: '/api/subscriptions',
    summary: 'Subscriptions',
    admin: true,
    query: page({ name: 'status', schema: z.enum(['pending', 'active', 'paused']).optional() }, { name: 'channel', schema: z.string().optional() }),
    ok: { status: 200, schema: s.subscriptionListSchema },
  },
  { method: 'get', path: '/api/subscriptions/:id', summary: 'One subscription', admin: true, ok: { status: 200, schema: s.subscriptionOneSchema } },
  {
    method: 'patch',
    path: '/api/subscriptions/:id',
    summary: 'Change a subscription',
    admin: true,
    body: updateSubscriptionSchema,
    ok: { status: 200, schema: s.subscriptionOneSchema },
  },
  { method: 'delete', path: '/api/subscriptions/:id', summary: 'Delete a subscription', admin: true, ok: { status: 200, schema: s.okSchema } },
  { method: 'post', path: '/api/subscriptions/:id/pause', summary: 'Pause a subscription', admin: true, ok: { status: 200, schema: s.subscriptionOneSchema } },
  {
    method: 'post',
    path: '/api/subscriptions/:id/resume',
    summary: 'Resume a subscription',
    admin: true,
    ok: { status: 200, schema: s.subscriptionOneSchema },
  },
  {
    method: 'post',
    path: '/api/subscriptions/:id/rotate-secret',
    summary: 'Rotate a webhook secret',
    admin: true,
    ok: { status: 200, schema: s.subscriptionOneSchema },
  },
  { method: 'post', path: '/api/subscriptions/:id/test', summary: 'Send a test message', admin: true, ok: { status: 200, schema: s.testSendSchema } },
  ...groupOperations(() => page()),
  {
    method: 'get',
    path: '/api/deliveries',
    summary: 'Deliveries, newest first',
    admin: true,
    query: page(
      { name: 'state', schema: z.enum(['pending', 'done', 'dead']).optional() },
      { name: 'subscription', schema: z.string().optional() },
      { name: 'since', schema: s.instantParamSchema },
    ),
    ok: { status: 200, schema: s.deliveryListSchema },
  },
  { method: 'get', path: '/api/deliveries/:id', summary: 'One delivery with its attempts', admin: true, ok: { status: 200, schema: s.deliveryOneSchema } },
  { method: 'post', path: '/api/deliveries/:id/replay', summary: 'Send a delivery again', admin: true, ok: { status: 200, schema: s.replayedSchema } },
  {
    method: 'post',
    path: '/api/delivery-replays',
    summary: 'Send again every delivery since a time',
    admin: true,
    body: s.replayRequestSchema,
    ok: { status: 200, schema: s.replayedSchema },
  },
  {
    method: 'post',
    path: '/api/app/installations',
    summary: 'Install the workspace app from a long-lived token (exchanged once; never echoed)',
    admin: true,
    body: s.installFromTokenSchema,
    ok: { status: 201, schema: s.installationOneSchema },
  },
  {
    method: 'get',
    path: '/api/app/installations',
    summary: 'The workspace app’s installations',
    admin: true,
    ok: { status: 200, schema: s.installationListSchema },
  },
  {
    method: 'get',
    path: '/api/app/installations/:id/conversations',
    summary: 'The conversations an installation can post to, over the vendor’s cursor pagination',
    admin: true,
    query: page(),
    ok: { status: 200, schema: s.conversationListSchema },
  },
  {
    method: 'post',
    path: '/api/admin/mcp-tokens',
    summary: 'Make a bearer token for an MCP client (MCP_AUTH=token); the token is in `secret`, shown this once',
    admin: true,
    body: newTokenBody,
    ok: { status: 201, schema: z.object({ ok: z.literal(true), token: mcpTokenSchema, secret: z.string() }) },
  },
  {
    method: 'get',
    path: '/api/admin/mcp-tokens',
    summary: 'MCP client tokens, oldest first (never the tokens themselves)',
    admin: true,
    ok: { status: 200, schema: z.object({ ok: z.literal(true), tokens: z.array(mcpTokenSchema) }) },
  },
  {
    method: 'delete',
    path: '/api/admin/mcp-tokens/:id',
    summary: 'Revoke an MCP client token: it stops working at once',
    admin: true,
    ok: { status: 200, schema: z.object({ ok: z.literal(true) }) },
  },
  {
    method: 'get',
    path: '/api/sources',
    summary: 'Every source watched: the main feed (id "main", kind "vendor-feed") first, then each status page, oldest first, each with its state',
    ok: { status: 200, schema: z.object({ ok: z.literal(true), sources: z.array(s.apiSourceSchema) }) },
  },
  {
    method: 'post',
    path: '/api/admin/sources',
    summary:
      "Watch a status page in the Statuspage format: its address passes the webhook targets' outbound rules, and its /api/v2/summary.json must answer in the format (400 not_statuspage otherwise); named from the page unless `name` is given",
    admin: true,
    body: s.newSourceBody,
    ok: { status: 201, schema: z.object({ ok: z.literal(true), source: s.apiSourceSchema }) },
  },
  {
    method: 'delete',
    path: '/api/admin/sources/:id',
    summary:
      'Stop watching a source. Its archive is kept, unless `purge=true`: then its incidents, notes, versions, search rows, events, component states and unsent deliveries are deleted too ("deleted"), or, for an archive larger than one request deletes, as much as one request may and the rest by retention within minutes ("deleting", with what is left). Sent deliveries\' records stay',
    admin: true,
    query: [{ name: 'purge', schema: z.enum(['true', 'false']).optional().describe('"true": delete the source\'s archive with it.') }],
    ok: { status: 200, schema: s.sourceRemovedSchema },
  },
];

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
const json = (schema: z.ZodType) => ({ 'application/json': { schema: jsonSchema(schema) } });
const errorResponse = { description: 'Refused: the one error shape', content: json(s.apiErrorSchema) };

export const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of API_OPERATIONS) {
    const params = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = (op.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, schema: jsonSchema(q.schema) }));
    const path = toOpenApiPath(op.path);
    paths[path] ??= {};
    paths[path][op.method] = {
      summary: op.summary,
      operationId: `${op.method}${toOpenApiPath(op.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(params.length + query.length ? { parameters: [...params, ...query] } : {}),
      ...(op.body ? { requestBody: { required: true, content: json(op.body) } } : {}),
      ...(op.admin ? { security: [{ adminBearer: [] }] } : {}),
      responses: { [String(op.ok.status)]: { description: 'OK', content: json(op.ok.schema) }, default: errorResponse },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'statuswatch', version: '1', description: 'A self-hosted monitor and archive of a SaaS vendor’s public status feed.' },
    paths,
    components: { securitySchemes: { adminBearer: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' } } },
  };
}
