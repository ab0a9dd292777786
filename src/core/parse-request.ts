/** A request's body or query read through its zod schema, refused in one shape everywhere. */
import type { z } from 'zod';
import { ApiError } from '../core/errors.ts';

/**
 * The parsed value, or a 400 `invalid_request` whose detail names each field and its problem.
 * Zod's messages name the field and the rule, never the value: a token sent in the wrong shape is
 * not echoed.
 */
export function parseRequest<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    throw new ApiError(400, 'invalid_request', detail);
  }
  return parsed.data;
}
