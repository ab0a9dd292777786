/** Errors that say what was expected, what came, and whether trying again can help. */

export class FeedFetchError extends Error {
  override readonly name = 'FeedFetchError';
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'http' | 'too_large',
    readonly retryable: boolean,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Another writer moved an incident between our read and our write; re-plan and try again. */
export class RevisionConflictError extends Error {
  override readonly name = 'RevisionConflictError';
  readonly retryable = true;
  constructor(
    readonly incidentId: string,
    readonly expected: number | null,
    readonly found: number | null,
    options?: { cause?: unknown },
  ) {
    super(`incident ${incidentId}: expected revision ${expected ?? 'none'}, found ${found ?? 'none'}`, options);
  }
}

/**
 * A source's poll was about to write after the source was removed, or while its archive is
 * being deleted: nothing of it was written, and polling it again finds no source.
 */
export class SourceGoneError extends Error {
  override readonly name = 'SourceGoneError';
  readonly retryable = false;
  constructor(
    readonly sourceId: string,
    options?: { cause?: unknown },
  ) {
    super(`source ${sourceId} was removed while it was polled: nothing of this poll was written`, options);
  }
}

/**
 * A search whose words match more incidents than one request may examine (SEARCH_LIMITS), with
 * filters that left less than a page among them: answering with what was found would hide older
 * matches, so the search is refused and the reader asked to narrow it.
 */
export class SearchTooBroadError extends Error {
  override readonly name = 'SearchTooBroadError';
  readonly retryable = false;
  constructor(readonly maxMatches: number) {
    super(`more than ${maxMatches} incidents contain these words`);
  }
}

/** A request the API refuses; mapped to one error body by the HTTP layer's onError. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 502 | 503,
    readonly code: string,
    readonly detail?: string,
    /** Headers the answer carries, such as Retry-After on a 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

/** A failed call to the vendor's Web API (adapters/web-api-client.ts). */
/**
 * Why a call failed. `code` is the vendor's error code when it answered `{ok: false}`
 * (`invalid_refresh_token`, `token_expired`, `token_revoked`, `token_already_exchanged`, ...), or
 * ours for what came instead: `timeout`, `network`, `http_<status>`, `too_large`, `malformed`.
 */
export class WebApiError extends Error {
  override readonly name = 'WebApiError';
  constructor(
    readonly method: string,
    readonly code: string,
    /** True when the same call may work later: a timeout, a lost connection, a 429 or a 5xx. */
    readonly retryable: boolean,
    options?: { cause?: unknown; detail?: string; retryAfterMs?: number | null },
  ) {
    super(`${method}: ${code}${options?.detail ? ` (${options.detail})` : ''}`, options);
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }

  /** A 429's Retry-After as a delay, when the vendor sent one. */
  readonly retryAfterMs: number | null;
}
