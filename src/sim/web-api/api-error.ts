/** A Web API method's refusal: the vendor's `{ok: false, error}` (plus the project's `detail`), and the HTTP status it comes with. */

export type ApiErrorBody = { ok: false; error: string; detail: string } & Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    /** The vendor answers method errors with 200; only a few (unknown method, 429, 413) differ. */
    readonly status = 200,
    /** Extra fields the vendor sends with some codes (`needed` and `provided` with missing_scope). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ApiError';
  }

  body(): ApiErrorBody {
    return { ok: false, error: this.code, detail: this.detail, ...this.extra };
  }
}

export function apiErrorResponse(error: ApiError): Response {
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...error.headers },
  });
}
