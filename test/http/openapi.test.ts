/** /openapi.json against the app itself: every JSON route is documented, every documented path is answered, and real answers fit the document's schemas. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { API_OPERATIONS, toOpenApiPath } from '../../src/http/openapi/openapi-document.ts';
import { apiErrorSchema } from '../../src/http/openapi/api-schemas.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { NO_FEED_URL, seedArchive } from '../helpers/seed-archive.ts';

/** JSON routes by where they live: the API, the health check, the widget's status and the document itself. */
const isJsonPath = (path: string) => (path.startsWith('/api/') && path !== '/api/reference') || ['/healthz', '/widget.json', '/openapi.json'].includes(path);

/** Middleware (ALL) and CORS preflights (OPTIONS, the widget's) are not operations a client calls. */
const NOT_OPERATIONS = ['ALL', 'OPTIONS'];

type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
};

describe('OpenAPI document', () => {
  let service: TestApp;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    service = await startTestApp(NO_FEED_URL);
    const now = new Date().toISOString();
    await seedArchive(service.store, [
      rawIncident({ id: 4242, title: 'Uploads failing', status: 'active', services: ['Files'], date_created: now, date_updated: now }),
    ]);
    const res = await service.fetch(`${service.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await res.json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await service.close();
  });

  it('is OpenAPI 3.1 and names every JSON route the app answers, with its method', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const served = service.routes
      .filter((r) => !NOT_OPERATIONS.includes(r.method) && isJsonPath(r.path))
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(new Set(served).size).toBeGreaterThan(25);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('documents the on-call channels’ bodies for a new subscription: routing_key, api_key and region', () => {
    const body = JSON.stringify((doc.paths['/api/subscriptions'] as Record<string, { requestBody?: unknown }>).post?.requestBody);
    expect(body).toMatch(/"const":"pagerduty"|"enum":\["pagerduty"\]/);
    expect(body).toMatch(/"const":"opsgenie"|"enum":\["opsgenie"\]/);
    expect(body).toContain('"routing_key"');
    expect(body).toContain('"api_key"');
    expect(body).toMatch(/"region":\{[^}]*"enum":\["us","eu"\]/);
  });

  it('documents the app channel’s body for a new subscription: installation and conversation', () => {
    const body = JSON.stringify((doc.paths['/api/subscriptions'] as Record<string, { requestBody?: unknown }>).post?.requestBody);
    expect(body).toMatch(/"const":"app"|"enum":\["app"\]/);
    expect(body).toContain('"installation"');
    expect(body).toContain('"conversation"');
  });

  it('documents Teams and Discord: a url to create, and only url_host in the answer', () => {
    const body = JSON.stringify((doc.paths['/api/subscriptions'] as Record<string, { requestBody?: unknown }>).post?.requestBody);
    for (const channel of ['teams', 'discord']) expect(body).toMatch(new RegExp(`"const":"${channel}"|"enum":\\["${channel}"\\]`));
    expect(JSON.stringify(doc.paths['/api/subscriptions'])).toContain('"url_host"');
  });

  it('documents where each on-call and chat subscription sends in the answer: url_host for teams and discord, region for opsgenie', () => {
    type Schema = { properties?: Record<string, Schema>; items?: Schema; enum?: unknown[] };
    const answerOf = (path: string, method: string, status: string) =>
      doc.paths[path]![method]!.responses[status]!.content['application/json']!.schema as Schema;
    const subscriptionSchemas = [
      answerOf('/api/subscriptions', 'post', '201').properties!.subscription!,
      answerOf('/api/subscriptions/{id}', 'get', '200').properties!.subscription!,
      answerOf('/api/subscriptions/{id}', 'patch', '200').properties!.subscription!,
      answerOf('/api/subscriptions', 'get', '200').properties!.subscriptions!.items!,
    ];
    for (const schema of subscriptionSchemas) {
      expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(['url_host', 'region']));
      expect(schema.properties!.region!.enum).toEqual(['us', 'eu']);
    }
    const change = JSON.stringify((doc.paths['/api/subscriptions/{id}'] as Record<string, { requestBody?: unknown }>).patch?.requestBody);
    for (const field of ['url', 'routing_key', 'api_key', 'region']) expect(change).toContain(`"${field}"`);
  });

  it('puts the bearer scheme on every admin operation and on no public one', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        const admin = /^\/api\/(admin|subscriptions|deliveries|delivery-replays|app\/)/.test(path);
        expect(op.security ?? [], path).toEqual(admin ? [{ adminBearer: [] }] : []);
      }
    }
  });

  it('describes what public routes really answer, refusals included', async () => {
    for (const op of API_OPERATIONS.filter((o) => o.method === 'get' && !o.admin && !o.path.includes(':'))) {
      const res = await service.fetch(`${service.url}${op.path}`);
      const body: unknown = await res.json();
      // The document's own JSON Schema, read back by zod: what a client generated from it would expect.
      const documented = z.fromJSONSchema(
        doc.paths[toOpenApiPath(op.path)]!.get!.responses[String(op.ok.status)]!.content['application/json']!.schema as never,
      );
      if (op.path !== '/healthz' || res.status === 200) expect(documented.safeParse(body).success, op.path).toBe(true);
    }
    const incident = await service.get('/api/incidents/4242');
    expect(API_OPERATIONS.find((o) => o.path === '/api/incidents/:id')!.ok.schema.safeParse(incident.body).success).toBe(true);
    const refused = await service.get('/api/incidents?cursor=not-ours');
    expect(refused.status).toBe(400);
    expect(apiErrorSchema.parse(refused.body).error).toBe('invalid_cursor');
  });

  it('has a reference page on our own origin, linked from the footer, listing every operation', async () => {
    const res = await service.fetch(`${service.url}/api/reference`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const op of API_OPERATIONS) expect(html).toContain(toOpenApiPath(op.path));
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    const home = await (await service.fetch(`${service.url}/`)).text();
    expect(home).toContain('href="/api/reference"');
  });

  it('shows on the reference page each operation with its parameters, request body and answers, as the document says', async () => {
    const html = await (await service.fetch(`${service.url}/api/reference`)).text();
    const text = (fragment: string) =>
      fragment
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>');
    type Schema = { properties?: Record<string, Schema>; items?: Schema; description?: string };
    const fieldsOf = (schema: Schema | undefined): string[] => {
      const object = schema?.items ?? schema;
      return Object.keys(object?.properties ?? {});
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods as Record<string, any>)) {
        const start = html.indexOf(`<article class="api-op" id="${op.operationId}"`);
        expect(start, `${method} ${path}`).toBeGreaterThan(-1);
        const article = text(html.slice(start, html.indexOf('</article>', start)));
        expect(article).toContain(`${method.toUpperCase()} ${path}`);
        for (const param of op.parameters ?? []) {
          expect(article).toContain(param.name);
          if (param.schema?.description) expect(article).toContain(param.schema.description);
        }
        for (const field of fieldsOf(op.requestBody?.content['application/json'].schema)) expect(article, `${method} ${path} body`).toContain(field);
        for (const [status, answer] of Object.entries(op.responses as Record<string, any>)) {
          if (status === 'default') continue;
          expect(article).toContain(status);
          for (const field of fieldsOf(answer.content['application/json'].schema)) expect(article, `${method} ${path} ${status}`).toContain(field);
        }
      }
    }
    // Nested fields and their descriptions too: the list page's cursor, several levels down.
    const incidents = text(html.slice(html.indexOf('id="getApiIncidents"'), html.indexOf('</article>', html.indexOf('id="getApiIncidents"'))));
    expect(incidents).toContain('next_cursor string Empty on the last page.');
    expect(incidents).toContain('limit in the query (optional)');
    // Served from our own origin: no stylesheet, script or font from anywhere else.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//);
  });

  it('is served with a validator, and 304 when unchanged', async () => {
    const first = await service.fetch(`${service.url}/openapi.json`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await service.fetch(`${service.url}/openapi.json`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});
