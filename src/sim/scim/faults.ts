/** Injected failures of the SCIM endpoints, and which request each one hits next. */
import { createFaultBook } from '../fault-book.ts';

export const SCIM_ENDPOINTS = [
  'config',
  'users.list',
  'users.get',
  'users.create',
  'users.replace',
  'users.patch',
  'users.delete',
  'groups.list',
  'groups.get',
  'groups.create',
  'groups.replace',
  'groups.patch',
  'groups.delete',
] as const;
export type ScimEndpoint = (typeof SCIM_ENDPOINTS)[number];

/**
 * status: an error status with the version's error body (500 by default).
 * rate-limit: a 429 with Retry-After, as a burst from other SCIM apps in the org would cause.
 * timeout: the response is held open until the client gives up or the sim closes.
 * missing-page: a list page comes back with no Resources although totalResults says more remain.
 * redirect: a 302 to another host, as a misconfigured proxy might answer: a client must not follow
 * it, since its bearer token would go along.
 * body: `body` as given (JSON of another shape, or not JSON at all), with `status` or 200.
 * endless: a list page full of made-up resources at any startIndex, its totalResults always a page
 * ahead (or `totalResults` as given, a lie): a list that never ends.
 * delay: the true answer, after `delayMs`, as a directory under load gives it.
 */
export const SCIM_FAULT_KINDS = ['status', 'rate-limit', 'timeout', 'missing-page', 'redirect', 'body', 'endless', 'delay'] as const;
export type ScimFaultKind = (typeof SCIM_FAULT_KINDS)[number];

export type ScimFaultSpec = {
  target: ScimEndpoint | '*';
  kind: ScimFaultKind;
  /** How many requests it affects; absent means until cleared. */
  times?: number;
  status?: number;
  retryAfterSeconds?: number;
  /** Only list requests at this startIndex (a page that goes missing); absent means any request. */
  startIndex?: number;
  /** What a `body` fault answers, with `status` (200 when absent). */
  body?: string;
  /** How long a `delay` fault holds the answer. */
  delayMs?: number;
  /** The totalResults an `endless` page claims; absent: always one page more than was sent. */
  totalResults?: number;
};

export type ScimFault = {
  id: number;
  target: ScimEndpoint | '*';
  kind: ScimFaultKind;
  times: number | null;
  status: number | null;
  retryAfterSeconds: number | null;
  startIndex: number | null;
  body: string | null;
  delayMs: number | null;
  totalResults: number | null;
};

// Tests stack a handful; a cap keeps a runaway script from growing the list without end.
export const MAX_SCIM_FAULTS = 100;

export type ScimFaultBook = {
  /** Returns null when the book is full. */
  add(spec: ScimFaultSpec): ScimFault | null;
  take(endpoint: ScimEndpoint, startIndex: number | null): ScimFault | null;
  list(): ScimFault[];
  clear(): void;
};

export function createScimFaultBook(): ScimFaultBook {
  const book = createFaultBook<ScimFault>(MAX_SCIM_FAULTS);
  return {
    add: (spec) =>
      book.add({
        target: spec.target,
        kind: spec.kind,
        times: spec.times ?? null,
        status: spec.status ?? null,
        retryAfterSeconds: spec.retryAfterSeconds ?? null,
        startIndex: spec.startIndex ?? null,
        body: spec.body ?? null,
        delayMs: spec.delayMs ?? null,
        totalResults: spec.totalResults ?? null,
      }),
    take: (endpoint, startIndex) => book.take((f) => (f.target === '*' || f.target === endpoint) && (f.startIndex === null || f.startIndex === startIndex)),
    list: book.list,
    clear: book.clear,
  };
}
