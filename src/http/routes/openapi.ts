/** `/openapi.json`: the API's OpenAPI 3.1 document, built once from the zod schemas and served as the same bytes. */
import { Hono } from 'hono';
import { buildOpenApiDocument } from '../openapi/openapi-document.ts';

/** The document depends on code alone: a day's caching is safe, and the ETag says when a deploy changed it. */
const MAX_AGE_SECONDS = 86_400;

export function openApiRoutes() {
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
  return app;
}
