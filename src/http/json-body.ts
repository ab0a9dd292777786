/** The JSON body of an API write, read one way by every route that takes one. */
import type { Context } from 'hono';
import { ApiError } from '../core/errors.ts';

/** Throws ApiError 400 invalid_request for a body that is not declared JSON, or does not parse. */
export async function jsonBody(c: Context): Promise<unknown> {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    throw new ApiError(400, 'invalid_request', 'expected a JSON body (Content-Type: application/json)');
  }
  try {
    return await c.req.json();
  } catch {
    throw new ApiError(400, 'invalid_request', 'the body is not valid JSON');
  }
}
