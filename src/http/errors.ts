/** One error shape for every endpoint: `{ok: false, error: "<code>", detail?}`. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';

export type ErrorBody = { ok: false; error: string; detail?: string };

export function errorBody(code: string, detail?: string): ErrorBody {
  return detail ? { ok: false, error: code, detail } : { ok: false, error: code };
}

export function createErrorHandler(logger: Logger) {
  return (error: Error, c: Context) => {
    if (error instanceof ApiError) return c.json(errorBody(error.code, error.detail), error.status, { ...error.headers });
    if (error instanceof HTTPException) {
      // Hono's own refusals (malformed bodies and the like) keep their status, in our shape.
      const status = error.status as ContentfulStatusCode;
      return c.json(errorBody(status === 401 ? 'unauthorized' : 'invalid_request', error.message || undefined), status);
    }
    logger.error('request failed', { method: c.req.method, path: c.req.path, error: error.stack ?? String(error) });
    return c.json(errorBody('internal_error'), 500);
  };
}

export function notFound(c: Context) {
  return c.json(errorBody('not_found', `no route for ${c.req.method} ${c.req.path}`), 404);
}
