/** /openapi.json against the app itself: every JSON route is documented, every documented path is answered, and real answers fit the document's schemas. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { API_OPERATIONS, toOpenApiPath } from '../../src/http/openapi/openapi-document.ts';
import { apiErrorSchema } from '../../src/http/openapi/api-schemas.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { startTestApp, type TestApp } from '../helpers/app-service.ts';
import { startTestVendor, type TestVendor } from '../helpers/service.ts';

/** JSON routes by where they live: the API, the health check, the widget's status and the document itself. */
const isJsonPath = (path: string) => (path.startsWith('/api/') && path !== '/api/reference') || ['/healthz', '/widget.json', '/openapi.json'].includes(path);

/** Middleware (ALL) and CORS preflights (OPTIONS, the widget's) are not operations a client calls. */
const NOT_OPERATIONS = ['ALL', 'OPTIONS'];

type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
};

describe('OpenAPI document', () => {
  let vendor: TestVendor;
  let service: TestApp;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    vendor = await startTestVendor();
    service = await startTestApp(vendor.url);
    const now = new Date().toISOString();
    await vendor.setIncidents([
      rawIncident({ id: 4242, title: 'Uploads failing', status: 'active', services: ['Files'], date_created: now, date_updated: now }),
    ]);
    await service.poll();
    const res = await service.fetch(`${service.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await res.json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await service.close();
    await vendor.close();
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

  it('is served with a validator, and 304 when unchanged', async () => {
    const first = await service.fetch(`${service.url}/openapi.json`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await service.fetch(`${service.url}/openapi.json`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});
