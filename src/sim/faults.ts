/** Injected failures of the feed endpoints: what a test asked for, and which request each one hits next. */
import { createFaultBook } from './fault-book.ts';
import type { FeedEndpoint } from './feed-views.ts';
import { oversizeBody } from './oversize-body.ts';

export const FAULT_KINDS = [
  'status',
  'timeout',
  'slow',
  'malformed',
  'html',
  'not-feed',
  'missing',
  'oversize',
  'redirect',
  // A JSON body given by the test, served as is with a 200: hostile or malformed feeds that the
  // world (which holds only valid incidents) cannot express.
  'body',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const FEED_ENDPOINTS = ['v2/current', 'v2/history', 'v1/current', 'v1/history'] as const satisfies readonly FeedEndpoint[];
export const FAULT_TARGETS = [...FEED_ENDPOINTS, '*'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

export type FaultSpec = {
  target: FaultTarget;
  kind: FaultKind;
  /** How many requests it affects; absent means until cleared. */
  times?: number;
  status?: number;
  delayMs?: number;
  /** The body a `body` fault serves. */
  body?: string;
};

/** A registered fault; `times` counts down and is null when unlimited. */
export type Fault = {
  id: number;
  target: FaultTarget;
  kind: FaultKind;
  times: number | null;
  status: number | null;
  delayMs: number | null;
  body: string | null;
};

/** Faults registered at once; more are refused (409). */
export const FEED_FAULTS_MAX = 100;

export type FaultBook = {
  /** Null when FEED_FAULTS_MAX are registered. */
  add(spec: FaultSpec): Fault | null;
  /** The fault that applies to this request, if any, consuming one of its `times`. */
  take(endpoint: FeedEndpoint): Fault | null;
  list(): Fault[];
  clear(): void;
};

export function createFeedFaultBook(): FaultBook {
  const book = createFaultBook<Fault>(FEED_FAULTS_MAX);
  return {
    add: (spec) => {
      // Building a 12 MB body takes seconds on a loaded machine: built now, not inside the request a
      // client times, so the client meets the size it must refuse rather than a slow answer.
      if (spec.kind === 'oversize') for (const endpoint of FEED_ENDPOINTS) if (spec.target === '*' || spec.target === endpoint) oversizeBody(endpoint);
      return book.add({
        target: spec.target,
        kind: spec.kind,
        times: spec.times ?? null,
        status: spec.status ?? null,
        delayMs: spec.delayMs ?? null,
        body: spec.body ?? null,
      });
    },
    take: (endpoint) => book.take((f) => f.target === '*' || f.target === endpoint),
    list: book.list,
    clear: book.clear,
  };
}
