/** The simulated SCIM service's mutable state: directory, clock, rate limits, faults, short pages and counters. */
import { createHeldRequests, type HeldRequests } from '../held-requests.ts';
import { createScimCounters, type ScimCounters } from './counters.ts';
import { createDirectory, DEFAULT_DIRECTORY_LIMITS, type Directory, type DirectoryLimits } from './directory.ts';
import { createScimFaultBook, type ScimFaultBook } from './faults.ts';
import { createRateLimiter, type RateLimiter } from './rate-limits.ts';

export const DEFAULT_SCIM_TOKEN = 'xoxp-scim-sim-token';

export type SimulatedScimOptions = {
  /** The bearer token clients must send; default DEFAULT_SCIM_TOKEN. */
  token?: string;
  /** "Now" for created times and the rate-limit buckets; default Date.now. */
  clock?: () => number;
  /** Enforce the spec's rate-limit table; default true. */
  rateLimits?: boolean;
  limits?: Partial<DirectoryLimits>;
};

/** Why the workspace refuses every SCIM call, as the spec's plan and install checks would; null when it accepts them. */
export const WORKSPACE_REFUSALS = ['plus_teams_only', 'non_org_teams_only', 'permission_denied'] as const;
export type WorkspaceRefusal = (typeof WORKSPACE_REFUSALS)[number];

export type ShortPages = { users: number | null; groups: number | null };

/**
 * Where this directory follows RFC 7644 as its reference server does, not the vendor: the list
 * endpoints without a trailing slash only (`/Groups/` is a 404), and error bodies whose `detail`
 * is free text for people (status as a string) instead of the vendor's error code.
 */
export type RfcModes = { trailingSlash404: boolean; plainErrors: boolean };

export type ScimState = {
  readonly token: string;
  readonly directory: Directory;
  readonly limiter: RateLimiter;
  readonly faults: ScimFaultBook;
  readonly counters: ScimCounters;
  readonly held: HeldRequests;
  rateLimitsEnabled: boolean;
  shortPages: ShortPages;
  workspaceRefusal: WorkspaceRefusal | null;
  rfc: RfcModes;
  /** The versions this directory speaks; one turned off answers unsupported_version, as an older or newer vendor service would. */
  versions: { v1: boolean; v2: boolean };
  /** Users and groups ("users:<id>") a write is in progress on; at most one entry per open request. */
  readonly updating: Set<string>;
  now(): number;
  setClock(nowMs: number | null): void;
  /** Empties the directory and forgets faults, short pages, counters and rate-limit buckets. */
  reset(): void;
};

export function createScimState(options: SimulatedScimOptions = {}): ScimState {
  const baseClock = options.clock ?? Date.now;
  let fixedNowMs: number | null = null;
  const state: ScimState = {
    token: options.token ?? DEFAULT_SCIM_TOKEN,
    directory: createDirectory({ ...DEFAULT_DIRECTORY_LIMITS, ...options.limits }),
    limiter: createRateLimiter(),
    faults: createScimFaultBook(),
    counters: createScimCounters(),
    held: createHeldRequests(),
    rateLimitsEnabled: options.rateLimits ?? true,
    shortPages: { users: null, groups: null },
    workspaceRefusal: null,
    rfc: { trailingSlash404: false, plainErrors: false },
    versions: { v1: true, v2: true },
    updating: new Set(),
    now: () => fixedNowMs ?? baseClock(),
    setClock(nowMs) {
      fixedNowMs = nowMs;
    },
    reset() {
      state.directory.clear();
      state.limiter.reset();
      state.faults.clear();
      state.counters.clear();
      state.shortPages = { users: null, groups: null };
      state.workspaceRefusal = null;
      state.rfc = { trailingSlash404: false, plainErrors: false };
      state.versions = { v1: true, v2: true };
    },
  };
  return state;
}
