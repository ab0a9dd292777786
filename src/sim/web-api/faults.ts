/**
 * Failures a test injects into Web API methods: an `{ok:false}` error, an HTTP status, a 429, no
 * answer at all, or a body given as is (an answer the vendor's rules would never make); before the method runs, or after it (the change is made, the answer is lost:
 * the case a refresh-token grace period exists for).
 */
import { createFaultBook } from '../fault-book.ts';

export const WEB_API_FAULT_KINDS = ['error', 'status', 'ratelimited', 'timeout', 'body'] as const;
export type WebApiFaultKind = (typeof WEB_API_FAULT_KINDS)[number];

export type WebApiFaultSpec = {
  /** A method name, or '*' for every method. */
  method: string;
  kind: WebApiFaultKind;
  /** The `error` of an error fault (default internal_error). */
  error?: string;
  /** The HTTP status of a status fault (default 500). */
  status?: number;
  /** Retry-After of a ratelimited fault (default 1). */
  retryAfterSeconds?: number;
  /** What a body fault answers, as given, with HTTP 200. */
  body?: string;
  /** Run the method first, then answer with the fault. */
  after?: boolean;
  /** How many calls it affects; absent means until cleared. */
  times?: number;
};

export type WebApiFault = Required<Pick<WebApiFaultSpec, 'method' | 'kind' | 'after'>> & {
  id: number;
  error: string | null;
  status: number | null;
  retryAfterSeconds: number | null;
  body: string | null;
  times: number | null;
};

/** Faults registered at once; more are refused. */
export const WEB_API_FAULTS_MAX = 100;

export type WebApiFaultBook = {
  /** Null when WEB_API_FAULTS_MAX are registered. */
  add(spec: WebApiFaultSpec): WebApiFault | null;
  /** The first fault matching this call, consuming one of its `times`. */
  take(method: string): WebApiFault | null;
  list(): WebApiFault[];
  clear(): void;
};

export function createWebApiFaultBook(): WebApiFaultBook {
  const book = createFaultBook<WebApiFault>(WEB_API_FAULTS_MAX);
  return {
    add: (spec) =>
      book.add({
        method: spec.method,
        kind: spec.kind,
        after: spec.after ?? false,
        error: spec.error ?? null,
        status: spec.status ?? null,
        retryAfterSeconds: spec.retryAfterSeconds ?? null,
        body: spec.body ?? null,
        times: spec.times ?? null,
      }),
    take: (method) => book.take((f) => f.method === '*' || f.method === method),
    list: book.list,
    clear: book.clear,
  };
}
