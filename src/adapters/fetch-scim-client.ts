/**
 * The workspace's SCIM directory over fetch (Web-standard: runs on Node and Workers), read-only:
 * v2.0 first and v1.1 when v2.0 answers unsupported_version, paging by totalResults, the spec's
 * per-endpoint rate limits kept before the vendor has to say 429 (core/scim-pacer.ts), Retry-After
 * obeyed within a patience, a timeout and a byte cap on every answer, and zod on every body.
 */
import { z } from 'zod';
import type { Clock } from '../core/ports.ts';
import type { ScimCallStats, ScimDirectory, UsersPage } from '../core/ports/scim-directory.ts';
import { parseRetryAfterMs } from '../core/retry-after.ts';
import { ScimCallError } from '../core/scim-errors.ts';
import { SCIM_PAGE_SIZE } from '../core/scim-group.ts';
import { pace, scopesOf, type PacerBuckets } from '../core/scim-pacer.ts';
import {
  nextPage,
  scimErrorCode,
  scimGroupSchema,
  scimListSchema,
  scimUserSchema,
  toDirectoryGroup,
  toDirectoryUser,
  type DirectoryGroup,
  type ScimVersionName,
} from '../core/scim-resources.ts';
import { createTextPrefix, readCappedBody } from './capped-body.ts';

const SCIM_TIMEOUT_MS = 15_000;
// A page of 1,000 users is about 1.5 MB in the simulator's full view; a 15,000-member group about
// 1 MB. 16 MiB leaves room for verbose attributes and no more.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** How long in all one client waits on 429s before it gives up (the sync then fails and keeps the last list). */
const SCIM_RATE_LIMIT_PATIENCE_MS = 60_000;
// The spec's largest directory is far below this; a list that pages on past it is broken, not big.
const MAX_LIST_PAGES = 200;

export type ScimClientOptions = {
  /** SCIM_URL: the host; `/scim/v2` and `/scim/v1` are below it. */
  baseUrl: string;
  /** SCIM_TOKEN: sent as a Bearer token, never logged. */
  token: string;
  clock: Clock;
  timeoutMs?: number;
  /** Total wait on Retry-After (and 5xx back-off) one client accepts. */
  patienceMs?: number;
  /** 5xx answers tried again once each, after a second; default 1. */
  serverErrorRetries?: number;
  fetch?: typeof fetch;
  /** How the client waits (pacing, Retry-After); tests may pass one that advances a fake clock. */
  sleep?: (ms: number) => Promise<void>;
};

const userList = scimListSchema(scimUserSchema);
const groupList = scimListSchema(scimGroupSchema);
const anyObject = z.record(z.string(), z.unknown());

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createScimClient(options: ScimClientOptions): ScimDirectory {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? SCIM_TIMEOUT_MS;
  const patienceMs = options.patienceMs ?? SCIM_RATE_LIMIT_PATIENCE_MS;
  const serverErrorRetries = options.serverErrorRetries ?? 1;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  const { clock } = options;
  let version: ScimVersionName | null = null;
  let buckets: PacerBuckets = {};
  const stats: ScimCallStats = { requests: 0, pacedMs: 0, retryAfterMs: 0 };

  async function waitForTurn(path: string): Promise<void> {
    for (;;) {
      const decision = pace(buckets, scopesOf(path), clock.now());
      if (decision.kind === 'go') {
        buckets = decision.buckets;
        return;
      }
      stats.pacedMs += decision.waitMs;
      await sleep(decision.waitMs);
    }
  }

  /** One GET in one version: the parsed JSON of a 2xx, or a ScimCallError carrying the code. */
  async function getIn(v: ScimVersionName, path: string): Promise<unknown> {
    const request = `GET /scim/${v}${path}`;
    let waitedMs = 0;
    let serverErrors = 0;
    for (;;) {
      await waitForTurn(path);
      stats.requests += 1;
      const signal = AbortSignal.timeout(timeoutMs);
      const text = createTextPrefix(MAX_ANSWER_BYTES);
      let response: Response;
      let cut: boolean;
      try {
        response = await doFetch(`${base}/scim/${v}${path}`, {
          headers: { Accept: 'application/json', Authorization: `Bearer ${options.token}` },
          signal,
          // Never followed: the token would go wherever a redirect points. workerd has no 'error' mode,
          // so a 3xx comes back as itself and fails below as http_3xx.
          redirect: 'manual',
        });
        ({ cut } = await readCappedBody(response.body, MAX_ANSWER_BYTES, text.add));
      } catch (cause) {
        throw new ScimCallError(request, signal.aborted ? 'timeout' : 'network', null, true, { cause });
      }
      let json: unknown = null;
      try {
        json = cut ? null : JSON.parse(text.text);
      } catch {
        json = null;
      }
      const code = response.ok ? null : scimErrorCode(json);
      if (response.status === 429) {
        // The org's buckets are shared with every other SCIM app: a 429 can come however well we pace.
        const askedMs = parseRetryAfterMs(response.headers.get('retry-after'), clock.now()) ?? 1000;
        if (waitedMs + askedMs > patienceMs) {
          throw new ScimCallError(request, code ?? 'too_many_requests', 429, true, {
            detail: `Retry-After ${Math.ceil(askedMs / 1000)} s is beyond the patience left`,
          });
        }
        waitedMs += askedMs;
        stats.retryAfterMs += askedMs;
        await sleep(askedMs);
        continue;
      }
      if (response.status >= 500) {
        if (serverErrors < serverErrorRetries && waitedMs + 1000 <= patienceMs) {
          serverErrors += 1;
          waitedMs += 1000;
          await sleep(1000);
          continue;
        }
        throw new ScimCallError(request, code ?? `http_${response.status}`, response.status, true);
      }
      if (!response.ok) throw new ScimCallError(request, code ?? `http_${response.status}`, response.status, false);
      if (cut) throw new ScimCallError(request, 'too_large', response.status, false, { detail: `answer over ${MAX_ANSWER_BYTES} bytes` });
      if (json === null) throw new ScimCallError(request, 'malformed', response.status, false, { detail: 'the answer is not JSON' });
      return json;
    }
  }

  /** A GET in the directory's version, found on the first call: v2.0, or v1.1 when v2.0 is not supported. */
  async function get(path: string): Promise<unknown> {
    if (version !== null) return getIn(version, path);
    try {
      const json = await getIn('v2', path);
      version = 'v2';
      return json;
    } catch (error) {
      if (!(error instanceof ScimCallError) || error.code !== 'unsupported_version') throw error;
      const json = await getIn('v1', path);
      version = 'v1';
      return json;
    }
  }

  function parse<T>(path: string, schema: z.ZodType<T>, json: unknown): T {
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ScimCallError(`GET /scim/${version ?? 'v2'}${path}`, 'malformed', 200, false, {
        detail: issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'unexpected answer',
      });
    }
    return parsed.data;
  }

  /** Null for the codes that say "no such resource". */
  async function getOrNull(path: string, notFound: readonly string[]): Promise<unknown> {
    try {
      return await get(path);
    } catch (error) {
      if (error instanceof ScimCallError && notFound.includes(error.code)) return null;
      throw error;
    }
  }

  return {
    async version() {
      if (version !== null) return version;
      // The configuration page is the cheapest answer that says which version speaks.
      try {
        parse('/ServiceProviderConfig', anyObject, await getIn('v2', '/ServiceProviderConfig'));
        version = 'v2';
      } catch (error) {
        if (!(error instanceof ScimCallError) || error.code !== 'unsupported_version') throw error;
        parse('/ServiceProviderConfigs', anyObject, await getIn('v1', '/ServiceProviderConfigs'));
        version = 'v1';
      }
      return version;
    },

    async group(id) {
      const path = `/Groups/${encodeURIComponent(id)}`;
      const json = await getOrNull(path, ['no_such_group']);
      return json === null ? null : toDirectoryGroup(parse(path, scimGroupSchema, json));
    },

    async groupByName(name) {
      // Groups have no filterable attribute in the vendor's grammar (userName, email, restricted,
      // ultra_restricted are users'), and v2.0 has no filter at all: the groups are listed.
      let startIndex = 1;
      for (let pages = 0; pages < MAX_LIST_PAGES; pages += 1) {
        const path = `/Groups/?startIndex=${startIndex}&count=${SCIM_PAGE_SIZE}`;
        const page = parse(path, groupList, await get(path));
        const resources = page.Resources ?? [];
        const found = resources.find((g) => g.displayName === name);
        if (found) return toDirectoryGroup(found) satisfies DirectoryGroup;
        const next = nextPage(startIndex, resources.length, page.totalResults);
        if (next.kind === 'done') return null;
        if (next.kind === 'missing') throw new ScimCallError(`GET /scim/${version}${path}`, 'missing_page', 200, true);
        startIndex = next.startIndex;
      }
      throw new ScimCallError(`GET /scim/${version}/Groups/`, 'too_many_pages', 200, false);
    },

    async usersPage(startIndex, count): Promise<UsersPage> {
      const path = `/Users?startIndex=${startIndex}&count=${Math.min(count, SCIM_PAGE_SIZE)}`;
      const page = parse(path, userList, await get(path));
      const resources = page.Resources ?? [];
      if (resources.length === 0 && startIndex <= page.totalResults) {
        throw new ScimCallError(`GET /scim/${version}${path}`, 'missing_page', 200, true, { detail: `totalResults is ${page.totalResults}` });
      }
      return { users: resources.map(toDirectoryUser), totalResults: page.totalResults, startIndex };
    },

    async user(id) {
      const path = `/Users/${encodeURIComponent(id)}`;
      const json = await getOrNull(path, ['no_such_user', 'unknown_user']);
      return json === null ? null : toDirectoryUser(parse(path, scimUserSchema, json));
    },

    stats: () => ({ ...stats }),
  };
}
