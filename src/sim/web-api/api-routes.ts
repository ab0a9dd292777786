/**
 * `POST {APP_API_URL}/api/<method>`: faults first (as a broken network or vendor would), then the
 * arguments, the caller (client credentials or access token), its rate limit and scopes, then
 * the method. Method errors answer 200 with `{ok: false, error}`, as the vendor does.
 */
import { Hono } from 'hono';
import { ApiError, apiErrorResponse } from './api-error.ts';
import type { CallLogEntry } from './call-log.ts';
import { faultAnswer, faultErrorCode } from './fault-answers.ts';
import type { WebApiFault } from './faults.ts';
import type { CallContext, OkBody } from './method-types.ts';
import { METHODS } from './methods.ts';
import { readCallParams, stringArg } from './request-params.ts';
import type { WebApiState } from './state.ts';

/** Longer method names (all unknown) are cut in the call log. */
const METHOD_NAME_LOGGED_MAX = 100;

const okResponse = (body: OkBody): Response =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });

async function runMethod(state: WebApiState, request: Request, method: string, entry: CallLogEntry): Promise<OkBody> {
  const spec = METHODS[method]!;
  const params = await readCallParams(request);
  const base: CallContext = { state, params, method, nowMs: entry.atMs, origin: new URL(request.url).origin };
  const limited = (callerKey: string): void => {
    const waitSeconds = state.rateLimits.check(method, callerKey, base.nowMs);
    if (waitSeconds > 0)
      throw new ApiError('ratelimited', `${method} is rate limited; retry after ${waitSeconds} s`, 429, {}, { 'Retry-After': String(waitSeconds) });
  };
  if (spec.auth === 'client') {
    if (spec.formOnly && params.kind === 'json') {
      throw new ApiError('invalid_post_type', `${method} takes form-encoded arguments (application/x-www-form-urlencoded), not JSON`);
    }
    limited(`client ${stringArg(params, 'client_id') ?? params.basic?.clientId ?? '-'}`);
    return spec.run(base);
  }
  const { token, workspace } = state.tokens.authenticate(params.token, method, base.nowMs);
  entry.teamId = workspace.teamId;
  limited(`team ${workspace.teamId}`);
  const ctx = { ...base, token, workspace };
  const needed = spec.scope(ctx);
  if (needed !== null && !workspace.scopes.includes(needed)) {
    throw new ApiError('missing_scope', `${method} needs the ${needed} scope`, 200, { needed, provided: workspace.scopes.join(',') });
  }
  return spec.run(ctx);
}

export function apiRoutes(state: WebApiState): Hono {
  const app = new Hono();
  app.all('/api/:method', async (c) => {
    const method = c.req.param('method');
    // The name is the caller's text: the log keeps a bounded prefix of it.
    const entry = state.calls.record({ atMs: state.now(), method: method.slice(0, METHOD_NAME_LOGGED_MAX) });
    const answer = (response: Response, error: string | null = null): Response => {
      entry.status = response.status;
      entry.error = error;
      return response;
    };
    if (!Object.hasOwn(METHODS, method)) return answer(apiErrorResponse(new ApiError('unknown_method', `no method ${method}`, 404)), 'unknown_method');

    const fault = state.faults.take(method);
    if (fault) entry.fault = `${fault.kind}${fault.after ? ' after' : ''}`;
    // A held call has no status to log; the others log what the client got, not what the method did.
    const answerFault = async (f: WebApiFault): Promise<Response> =>
      f.kind === 'timeout' ? faultAnswer(f, c.req.raw, state.held) : answer(await faultAnswer(f, c.req.raw, state.held), faultErrorCode(f));
    if (fault && !fault.after) return answerFault(fault);

    let response: Response;
    let error: string | null = null;
    try {
      response = okResponse(await runMethod(state, c.req.raw, method, entry));
    } catch (cause) {
      if (!(cause instanceof ApiError)) throw cause;
      response = apiErrorResponse(cause);
      error = cause.code;
    }
    // An "after" fault: the method ran (tokens rotated, message posted) but its answer is lost.
    if (fault) return answerFault(fault);
    return answer(response, error);
  });
  // `/api/a/b` and `/api/` name no method either.
  app.notFound((c) => apiErrorResponse(new ApiError('unknown_method', `no method at ${c.req.path}`, 404)));
  return app;
}
