/**
 * The workspace's SCIM directory over fetch (Web-standard: runs on Node and Workers), read-only:
 * v2.0 first and v1.1 when v2.0 answers unsupported_version, paging by totalResults, the spec's
 * per-endpoint rate limits kept before the vendor has to say 429 (core/scim-pacer.ts), Retry-After
 * obeyed within a patience, a timeout and a byte cap on every answer, and zod on every body. A
 * bounded view (`bounded`) also ends with a signal (a sync's deadline) and reads at most so many bytes in all.
 */
import { z } from 'zod';
import type { Clock } from '../core/ports.ts';
import type { ScimCallStats, ScimDirectory, UsersPage } from '../core/ports/scim-directory.ts';
import { parseRetryAfterMs } from '../core/retry-after.ts';
import { ScimCallError } from '../core/scim-errors.ts';
import { SCIM_PAGE_SIZE } from '../core/scim-group.ts';
import { pace, scopesOf, type PacerBuckets } from '../core/scim-pacer.ts';
import {
  MAX_LIST_PAGES,
  nextPage,
  readGroup,
  scimErrorOf,
  scimGroupSchema,
  scimListSchema,
  readUser,
  toDirectoryGroup,
  type DirectoryUser,
  type ScimVersionName,
  type SkippedRecord,
} from '../core/scim-resources.ts';
import { firstIssue } from '../core/outside-records.ts';
import { createTextPrefix, readCappedBody } from './capped-body.ts';

const SCIM_TIMEOUT_MS = 15_000;
// A page of 1,000 users is about 1.5 MB in the simulator's full view; a 15,000-member group about
// 1 MB. 16 MiB leaves room for verbose attributes and no more.
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** How long in all one client waits on 429s before it gives up (the sync then fails and keeps the last list). */
const SCIM_RATE_LIMIT_PATIENCE_MS = 60_000;

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

// Each user or group of a page is read on its own (readUser, readGroup): one malformed record is
// skipped with its reason, not the page; the envelope (totalResults, Resources a list) is the page's.
const userList = scimListSchema(z.unknown());
const groupList = scimListSchema(z.unknown());
const anyObject = z.record(z.string(), z.unknown());

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What every view of one client shares: the version found, the rate-limit buckets and the cost so far. */
type SharedState = {
  version: ScimVersionName | null;
  buckets: PacerBuckets;
  stats: ScimCallStats;
  /** How the groups are listed: the spec's `/Groups/`, or `/Groups` where a directory answers that with 404. */
  groupsList: '/Groups/' | '/Groups';
};

/** A bounded view's limits as it spends them: the signal it ends with, and the bytes it may still read. */
type Spending = { signal: AbortSignal; bytesLeft: number };

/** A 404 without a code of the vendor's that says otherwise (a version not spoken, an endpoint that does not exist). */
function isPlainNotFound(error: unknown): boolean {
  return error instanceof ScimCallError && error.status === 404 && !['unsupported_version', 'bad_endpoint'].includes(error.code);
}

export function createScimClient(options: ScimClientOptions): ScimDirectory {
  return createView(options, { version: null, buckets: {}, stats: { requests: 0, pacedMs: 0, retryAfterMs: 0 }, groupsList: '/Groups/' }, null);
}

function createView(options: ScimClientOptions, shared: SharedState, spending: Spending | null): ScimDirectory {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? SCIM_TIMEOUT_MS;
  const patienceMs = options.patienceMs ?? SCIM_RATE_LIMIT_PATIENCE_MS;
  const serverErrorRetries = options.serverErrorRetries ?? 1;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? defaultSleep;
  const { clock } = options;
  // A bounded view counts its own cost too: syncs run side by side, each reporting what it made.
  const own: ScimCallStats = { requests: 0, pacedMs: 0, retryAfterMs: 0 };
  const counters = spending ? [shared.stats, own] : [shared.stats];
  const count = (field: keyof ScimCallStats, amount: number) => {
    for (const stats of counters) stats[field] += amount;
  };

  /** The failure of a read the view's own signal ended: its deadline passed, or whoever owns it stopped it. */
  function ended(request: string): ScimCallError {
    const reason: unknown = spending?.signal.reason;
    const code = reason instanceof Error && reason.name === 'TimeoutError' ? 'deadline' : 'stopped';
    return new ScimCallError(request, code, null, true);
  }

  /** Waits `ms` (pacing, Retry-After), cut short by the view's signal. */
  async function wait(request: string, ms: number): Promise<void> {
    if (!spending) return sleep(ms);
    const { signal } = spending;
    if (signal.aborted) throw ended(request);
    let onAbort = () => {};
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([sleep(ms), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) throw ended(request);
  }

  async function waitForTurn(request: string, path: string): Promise<void> {
    for (;;) {
      const decision = pace(shared.buckets, scopesOf(path), clock.now());
      if (decision.kind === 'go') {
        shared.buckets = decision.buckets;
        return;
      }
      count('pacedMs', decision.waitMs);
      await wait(request, decision.waitMs);
    }
  }

  /** One GET in one version: the parsed JSON of a 2xx, or a ScimCallError carrying the code. */
  async function getIn(v: ScimVersionName, path: string): Promise<unknown> {
    const request = `GET /scim/${v}${path}`;
    let waitedMs = 0;
    let serverErrors = 0;
    for (;;) {
      await waitForTurn(request, path);
      if (spending?.signal.aborted) throw ended(request);
      count('requests', 1);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = spending ? AbortSignal.any([timeout, spending.signal]) : timeout;
      // What this answer may take: the per-answer cap, or less when the view's bytes in all run out first.
      const maxBytes = spending ? Math.min(MAX_ANSWER_BYTES, spending.bytesLeft) : MAX_ANSWER_BYTES;
      const text = createTextPrefix(maxBytes);
      let response: Response;
      let cut: boolean;
      let bytes: number;
      try {
        response = await doFetch(`${base}/scim/${v}${path}`, {
          headers: { Accept: 'application/json', Authorization: `Bearer ${options.token}` },
          signal,
          // Never followed: the token would go wherever a redirect points. workerd has no 'error' mode,
          // so a 3xx comes back as itself and fails below as http_3xx.
          redirect: 'manual',
        });
        ({ cut, bytes } = await readCappedBody(response.body, maxBytes, text.add));
      } catch (cause) {
        if (spending?.signal.aborted) throw ended(request);
        throw new ScimCallError(request, timeout.aborted ? 'timeout' : 'network', null, true, { cause });
      }
      if (spending) spending.bytesLeft -= bytes;
      if (cut && maxBytes < MAX_ANSWER_BYTES) {
        throw new ScimCallError(request, 'over_budget', response.status, true, { detail: 'the bytes one sync may read in all ran out' });
      }
      let json: unknown = null;
      try {
        json = cut ? null : JSON.parse(text.text);
      } catch {
        json = null;
      }
      const said = response.ok ? { code: null, text: null } : scimErrorOf(json);
      const { code } = said;
      // The whole text the directory gave, beside its code: free text (RFC 7644's detail) says what happened.
      const saidMore = said.text !== null && said.text !== code ? { detail: said.text } : {};
      if (response.status === 429) {
        // The org's buckets are shared with every other SCIM app: a 429 can come however well we pace.
        const askedMs = parseRetryAfterMs(response.headers.get('retry-after'), clock.now()) ?? 1000;
        if (waitedMs + askedMs > patienceMs) {
          throw new ScimCallError(request, code ?? 'too_many_requests', 429, true, {
            detail: `Retry-After ${Math.ceil(askedMs / 1000)} s is beyond the patience left`,
          });
        }
        waitedMs += askedMs;
        count('retryAfterMs', askedMs);
        await wait(request, askedMs);
        continue;
      }
      if (response.status >= 500) {
        if (serverErrors < serverErrorRetries && waitedMs + 1000 <= patienceMs) {
          serverErrors += 1;
          waitedMs += 1000;
          await wait(request, 1000);
          continue;
        }
        throw new ScimCallError(request, code ?? `http_${response.status}`, response.status, true, saidMore);
      }
      if (!response.ok) throw new ScimCallError(request, code ?? `http_${response.status}`, response.status, false, saidMore);
      if (cut) throw new ScimCallError(request, 'too_large', response.status, false, { detail: `answer over ${MAX_ANSWER_BYTES} bytes` });
      if (json === null) throw new ScimCallError(request, 'malformed', response.status, false, { detail: 'the answer is not JSON' });
      return json;
    }
  }

  /** A GET in the directory's version, found on the first call: v2.0, or v1.1 when v2.0 is not supported. */
  async function get(path: string): Promise<unknown> {
    if (shared.version !== null) return getIn(shared.version, path);
    try {
      const json = await getIn('v2', path);
      shared.version = 'v2';
      return json;
    } catch (error) {
      if (!(error instanceof ScimCallError) || error.code !== 'unsupported_version') throw error;
      const json = await getIn('v1', path);
      shared.version = 'v1';
      return json;
    }
  }

  function parse<T>(path: string, schema: z.ZodType<T>, json: unknown): T {
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ScimCallError(`GET /scim/${shared.version ?? 'v2'}${path}`, 'malformed', 200, false, { detail: firstIssue(parsed.error, '(body)') });
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

  /**
   * One page of the groups' list. The spec writes `/Groups/`; a directory that answers that with
   * 404 (RFC 7644's reference server does) is asked `/Groups`, and from then on only that.
   */
  async function groupsPage(startIndex: number, count: number = SCIM_PAGE_SIZE) {
    const query = `?startIndex=${startIndex}&count=${count}`;
    try {
      const path = `${shared.groupsList}${query}`;
      return parse(path, groupList, await get(path));
    } catch (error) {
      const notThere = error instanceof ScimCallError && error.status === 404 && error.code !== 'unsupported_version';
      if (shared.groupsList !== '/Groups/' || !notThere) throw error;
      const path = `/Groups${query}`;
      const page = parse(path, groupList, await get(path));
      shared.groupsList = '/Groups';
      return page;
    }
  }

  /** A 404 of the same GET again, while the groups' list answers: what says a group is gone without the vendor's code. */
  async function goneOnceMore(path: string): Promise<boolean> {
    try {
      await get(path);
      return false;
    } catch (error) {
      if (!isPlainNotFound(error)) throw error;
    }
    // One group is enough to show the list answers: a full page carries up to 1,000 groups' members.
    await groupsPage(1, 1);
    return true;
  }

  return {
    async version() {
      if (shared.version !== null) return shared.version;
      // The configuration page is the cheapest answer that says which version speaks.
      try {
        parse('/ServiceProviderConfig', anyObject, await getIn('v2', '/ServiceProviderConfig'));
        shared.version = 'v2';
      } catch (error) {
        if (!(error instanceof ScimCallError) || error.code !== 'unsupported_version') throw error;
        parse('/ServiceProviderConfigs', anyObject, await getIn('v1', '/ServiceProviderConfigs'));
        shared.version = 'v1';
      }
      return shared.version;
    },

    async group(id) {
      const path = `/Groups/${encodeURIComponent(id)}`;
      try {
        const json = await getOrNull(path, ['no_such_group']);
        return json === null ? null : toDirectoryGroup(parse(path, scimGroupSchema, json));
      } catch (error) {
        // The vendor's own code says so above. A directory that follows RFC 7644 answers a plain 404
        // whose detail is free text: the group is gone only when that is so once more, and the
        // groups' list answers (a wrong SCIM_URL 404s everywhere, and is no deleted group).
        if (!isPlainNotFound(error) || !(await goneOnceMore(path))) throw error;
        return null;
      }
    },

    async groupByName(name, seen, skipped) {
      // Groups have no filterable attribute in the vendor's grammar (userName, email, restricted,
      // ultra_restricted are users'), and v2.0 has no filter at all: the groups are listed.
      let startIndex = 1;
      for (let pages = 0; pages < MAX_LIST_PAGES; pages += 1) {
        const page = await groupsPage(startIndex);
        const resources = page.Resources ?? [];
        for (const raw of resources) {
          const read = readGroup(raw);
          if (read.kind === 'skipped') {
            skipped?.(read.skip);
            continue;
          }
          seen?.(read.group.displayName);
          if (read.group.displayName === name) return read.group;
        }
        const next = nextPage(startIndex, resources.length, page.totalResults);
        if (next.kind === 'done') return null;
        if (next.kind === 'missing') throw new ScimCallError(`GET /scim/${shared.version}${shared.groupsList}`, 'missing_page', 200, true);
        startIndex = next.startIndex;
      }
      throw new ScimCallError(`GET /scim/${shared.version}${shared.groupsList}`, 'too_many_pages', 200, false);
    },

    async usersPage(startIndex, count): Promise<UsersPage> {
      const path = `/Users?startIndex=${startIndex}&count=${Math.min(count, SCIM_PAGE_SIZE)}`;
      const page = parse(path, userList, await get(path));
      const resources = page.Resources ?? [];
      if (resources.length === 0 && startIndex <= page.totalResults) {
        throw new ScimCallError(`GET /scim/${shared.version}${path}`, 'missing_page', 200, true, { detail: `totalResults is ${page.totalResults}` });
      }
      const users: DirectoryUser[] = [];
      const skipped: SkippedRecord[] = [];
      for (const raw of resources) {
        const read = readUser(raw);
        if (read.kind === 'user') users.push(read.user);
        else skipped.push(read.skipped);
      }
      return { users, skipped, totalResults: page.totalResults, startIndex };
    },

    async user(id) {
      const path = `/Users/${encodeURIComponent(id)}`;
      const json = await getOrNull(path, ['no_such_user', 'unknown_user']);
      if (json === null) return null;
      const read = readUser(json);
      if (read.kind === 'user') return read.user;
      throw new ScimCallError(`GET /scim/${shared.version ?? 'v2'}${path}`, 'invalid_record', 200, false, { detail: read.skipped.reason });
    },

    stats: () => ({ ...(spending ? own : shared.stats) }),

    bounded: (budget) => createView(options, shared, { signal: budget.signal, bytesLeft: budget.maxBytes }),
  };
}
