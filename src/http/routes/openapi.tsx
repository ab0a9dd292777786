/** `/openapi.json` (the API's OpenAPI 3.1 document, built once from the zod schemas) and `/api/reference`, the page of it. */
import { Hono } from 'hono';
import type { AppDeps } from '../deps.ts';
import { buildOpenApiDocument } from '../openapi/openapi-document.ts';
import { ApiReferencePage, type OpenApiDocument } from '../pages/api-reference-page.tsx';
import { pageResponder } from '../pages/layout.tsx';
import { pageSecurity } from '../pages/page-security.ts';

/** The document depends on code alone: a day's caching is safe, and the ETag says when a deploy changed it. */
const MAX_AGE_SECONDS = 86_400;

export function openApiRoutes(deps: Pick<AppDeps, 'assets'>) {
  const app = new Hono();
  let built: { body: string; etag: string } | null = null;
  const document = async () => {
    if (built) return built;
    const body = JSON.stringify(buildOpenApiDocument());
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
    const etag = `"${[...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`;
    built = { body, etag };
    return built;
  };
  app.get('/openapi.json', async (c) => {
    const { body, etag } = await document();
    c.header('etag', etag);
    c.header('cache-control', `public, max-age=${MAX_AGE_SECONDS}`);
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('content-type', 'application/json; charset=UTF-8');
    return c.body(body);
  });
  const page = pageResponder(deps.assets);
  // The page reads the document /openapi.json serves, so the two cannot disagree.
  let referenceDocument: OpenApiDocument | null = null;
  app.get('/api/reference', pageSecurity(), (c) => {
    referenceDocument ??= buildOpenApiDocument() as OpenApiDocument;
    return page(c, 'API reference', <ApiReferencePage document={referenceDocument} />);
  });
  return app;
}
