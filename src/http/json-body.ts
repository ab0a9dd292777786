/** The JSON body of an API write, read one way by every route that takes one. */
import type { Context } from 'hono';
import { ApiError } from '../core/errors.ts';
import { isWellFormed, NOT_WELL_FORMED_MESSAGE, wellFormed } from '../core/well-formed-text.ts';

// A JSON escape of half a surrogate pair: the only way a body read as UTF-8 can carry one.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * Throws ApiError 400 invalid_request for a body that is not declared JSON, or does not parse, or
 * holds half a surrogate pair in a string: the store and each face would write that text its own
 * way, and a key or a secret repaired would be another one, so it is refused, naming where it is.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
    throw new ApiError(400, 'invalid_request', 'expected a JSON body (Content-Type: application/json)');
  }
  let text: string;
  let value: unknown;
  try {
    text = await c.req.text();
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'the body is not valid JSON');
  }
  if (SURROGATE_ESCAPE.test(text)) {
    const where = brokenPath(value);
    if (where !== null) throw new ApiError(400, 'invalid_request', `${where || '(body)'}: ${NOT_WELL_FORMED_MESSAGE}`);
  }
  return value;
}

/** Where the first string (a value or a key) that is not well formed is, as `a.b.0`; null when none is. Iterative: a body may nest deep. */
function brokenPath(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, '']];
  const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return path;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        // A key is named by what can be shown of it.
        if (!isWellFormed(key)) return join(path, wellFormed(key));
        stack.push([child, join(path, key)]);
      }
    }
  }
  return null;
}
