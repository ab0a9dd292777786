/** One error shape for every endpoint: `{ok: false, error: "<code>", detail?}`. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from '../core/errors.ts';
import { recordFailure, type EpisodePolicy, type FailureEpisode } from '../core/failure-episode.ts';
import type { Clock, Logger } from '../core/ports.ts';
import { describeStoreFailure } from '../core/store-failure.ts';

/** How long a client is asked to wait while the database cannot be used (disk full, locked). */
const STORE_FAILURE_RETRY_AFTER_SECONDS = 30;
/**
 * Logging of requests that fail on the database: one line per episode and a reminder every 5
 * minutes, not a stack per request; a quiet minute ends the episode (no success is seen here).
 * No retry delays: the client retries, told by Retry-After.
 */
const STORE_FAILURE_LOG_POLICY: EpisodePolicy = { firstRetryMs: 0, maxRetryMs: 0, remindEveryMs: 5 * 60_000, forgetAfterMs: 60_000 };

export type ErrorBody = { ok: false; error: string; detail?: string };

export function errorBody(code: string, detail?: string): ErrorBody {
  return detail ? { ok: false, error: code, detail } : { ok: false, error: code };
}

export function createErrorHandler(logger: Logger, clock: Clock) {
  let storeEpisode: FailureEpisode | null = null;
  return (error: Error, c: Context) => {
    if (error instanceof ApiError) return c.json(errorBody(error.code, error.detail), error.status, { ...error.headers });
    if (error instanceof HTTPException) {
      // Hono's own refusals (malformed bodies and the like) keep their status, in our shape.
      const status = error.status as ContentfulStatusCode;
      return c.json(errorBody(status === 401 ? 'unauthorized' : 'invalid_request', error.message || undefined), status);
    }
    if (clientWentAway(error, c)) {
      // An aborted upload: the client's doing, and nobody is left to read the answer.
      logger.debug('client went away mid-request', { method: c.req.method, path: c.req.path });
      return c.json(errorBody('request_aborted', 'the client closed the connection before its request was read'), 400);
    }
    const failure = describeStoreFailure(error);
    if (failure.known) {
      const step = recordFailure(storeEpisode, { reason: failure.reason, now: clock.now() }, STORE_FAILURE_LOG_POLICY);
      storeEpisode = step.episode;
      const fields = { method: c.req.method, path: c.req.path, error: failure.message, failures: step.episode.failures };
      if (step.log === 'reminder') logger.warn(`requests still failing: ${failure.reason}`, fields);
      else if (step.log) logger.error(`requests failing: ${failure.reason}`, fields);
      const detail = `the server cannot use its database just now (${failure.reason}); try again later`;
      return c.json(errorBody('storage_unavailable', detail), 503, { 'retry-after': String(STORE_FAILURE_RETRY_AFTER_SECONDS) });
    }
    logger.error('request failed', { method: c.req.method, path: c.req.path, error: error.stack ?? String(error) });
    return c.json(errorBody('internal_error'), 500);
  };
}

/**
 * The request's signal is aborted once its connection closes (@hono/node-server and Workers both
 * do this); Node's own "aborted" error carries ECONNRESET, for a read that fails first.
 */
function clientWentAway(error: Error, c: Context): boolean {
  return c.req.raw.signal.aborted || (error as Error & { code?: unknown }).code === 'ECONNRESET';
}

export function notFound(c: Context) {
  return c.json(errorBody('not_found', `no route for ${c.req.method} ${c.req.path}`), 404);
}
