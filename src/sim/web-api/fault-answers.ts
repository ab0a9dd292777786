/** The answer an injected Web API fault gives in place of the method's own. */
import { ApiError, apiErrorResponse } from './api-error.ts';
import type { WebApiFault } from './faults.ts';
import { type HeldRequests, holdOpen } from '../held-requests.ts';

/** The `error` a fault's answer carries, for the call log; null when it carries none (an error page, no answer). */
export function faultErrorCode(fault: WebApiFault): string | null {
  if (fault.kind === 'error') return fault.error ?? 'internal_error';
  return fault.kind === 'ratelimited' ? 'ratelimited' : null;
}

export function faultAnswer(fault: WebApiFault, request: Request, held: HeldRequests): Response | Promise<Response> {
  switch (fault.kind) {
    case 'error':
      return apiErrorResponse(new ApiError(fault.error ?? 'internal_error', `simulated fault #${fault.id}`));
    case 'ratelimited': {
      const seconds = fault.retryAfterSeconds ?? 1;
      return apiErrorResponse(
        new ApiError('ratelimited', `simulated fault #${fault.id}: retry after ${seconds} s`, 429, {}, { 'Retry-After': String(seconds) }),
      );
    }
    case 'status': {
      const status = fault.status ?? 500;
      const headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8' };
      if (status === 429 || status === 503) headers['Retry-After'] = '1';
      // A proxy's error page, not the vendor's JSON: a client must not assume every answer parses.
      return new Response(`<html><body>simulated error ${status}</body></html>`, { status, headers });
    }
    case 'timeout':
      return holdOpen(request, held);
    case 'body':
      return new Response(fault.body ?? '', { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  }
}
