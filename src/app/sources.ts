/**
 * The sources an admin administers: status pages in the Statuspage format watched beside the main
 * feed. Adding one checks its address with the webhook targets' outbound rules, reads its summary
 * once (bounded in bytes and time) and saves it only when it answers in the format; listing shows
 * every source, the main feed first, each with what is known of it now. One function per use case,
 * called by every face (the JSON routes, the admin page).
 */
import { ApiError, FeedFetchError } from '../core/errors.ts';
import { assessKnowledge, type Knowledge } from '../core/knowledge.ts';
import type { ArchiveQueries, Clock, FeedClient, SourceArchiveLeft, SourceKind, SourcePollState, SourceStore, StoredSource } from '../core/ports.ts';
import { componentServiceNames, MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';
import { NOT_STATUSPAGE_MESSAGE, NotStatuspageError, parseSummary } from '../core/statuspage/schema.ts';
import { withAllowPrivateHint } from '../core/webhook-target.ts';
import { PURGE_BATCH_ROWS, PURGE_STEPS_PER_REQUEST, runPurgeSteps } from './source-purge.ts';
import { wellFormedPrefix } from '../core/well-formed-text.ts';

/** Where a page in the Statuspage format says what it is: its name, components and open incidents. */
export const SUMMARY_PATH = '/api/v2/summary.json';
/** A source's name, given or the page's own, at most this long (longer page names are cut). */
export const SOURCE_NAME_MAX_CHARS = 100;
/** A page's address at most this long, as given. */
export const SOURCE_URL_MAX_CHARS = 2000;

export type SourceState = 'known' | 'reads_failing' | 'unknown';

/** A source as every face shows it: what it is, and what is known of it now. */
export type SourceView = {
  id: string;
  kind: SourceKind | 'vendor-feed';
  name: string;
  url: string;
  /** Null for the main feed, which is set up by STATUS_URL, not added. */
  createdAt: number | null;
  /** `unknown` until a poll reads it, and again once its last good read is too old. */
  state: SourceState;
  lastSuccessAt: number | null;
  consecutiveFailures: number;
};

export type AddSourceInput = { kind: 'statuspage'; url: string; name?: string };

export type SourceServiceDeps = {
  store: Pick<SourceStore, 'addSource' | 'listSources' | 'removeSource' | 'beginSourcePurge' | 'purgeSourceStep' | 'sourceArchiveLeft'> &
    Pick<ArchiveQueries, 'feedHealth'>;
  /** A client that reads below a page's address, bounded in bytes and time (the feed client's own reads). */
  openPage: (baseUrl: string) => FeedClient;
  /** The webhook targets' outbound rules under WEBHOOK_ALLOW_PRIVATE: a page is an outbound target as a webhook is. */
  checkTarget: (url: string) => { ok: true } | { ok: false; reason: string; privateTarget?: boolean };
  clock: Clock;
  newId: () => string;
  /** SOURCES_MAX: sources that may exist at once, the main feed not counted. */
  maxSources: number;
  /** STATUS_URL: the main feed, listed as a source of its own. */
  mainFeedUrl: string;
};

export type SourceService = {
  add(input: AddSourceInput): Promise<SourceView>;
  list(): Promise<SourceView[]>;
  /** False when there was no such source. The main feed cannot be removed. */
  remove(id: string): Promise<boolean>;
  /**
   * Stops watching the source and deletes its archive: all of it within the request when it is
   * small enough, else as much as one request may and the rest by retention. Null when there
   * was no such source. Asked again while it is deleting, it goes on.
   */
  purge(id: string): Promise<PurgeOutcome | null>;
};

/** What a purge came to: the archive is gone, or going, with what is left of it (counts capped at ARCHIVE_LEFT_CAP). */
export type PurgeOutcome = { archive: 'deleted' } | { archive: 'deleting'; left: SourceArchiveLeft };

/** What is left is counted up to this many of each kind: a bounded read, said as "at least" beyond. */
export const ARCHIVE_LEFT_CAP = 100_000;

const NEVER_POLLED: SourcePollState = {
  validators: {},
  lastSuccessAt: null,
  lastFailureAt: null,
  lastError: null,
  consecutiveFailures: 0,
  blindSince: null,
  blindToldAt: null,
};

/** The main feed's name among sources: the host of STATUS_URL. */
export function mainFeedName(statusUrl: string): string {
  return new URL(statusUrl).host;
}

function stateOf(knowledge: Knowledge): SourceState {
  if (knowledge.kind !== 'known') return 'unknown';
  return knowledge.readsFailing ? 'reads_failing' : 'known';
}

/**
 * A page's address in one spelling, so the same page is never added twice: https (or http where
 * allowed), no credentials, no query or fragment, no trailing slash, and the summary's own path
 * dropped when it was pasted in whole.
 */
export function normaliseSourceUrl(input: string): string {
  const text = input.trim();
  if (text.length > SOURCE_URL_MAX_CHARS) throw new ApiError(400, 'invalid_request', `url: at most ${SOURCE_URL_MAX_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'url: not a valid absolute URL, such as https://www.githubstatus.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ApiError(400, 'invalid_request', 'url: must be an https address');
  if (url.username || url.password) throw new ApiError(400, 'invalid_request', 'url: must not hold a user name or password');
  url.search = '';
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(SUMMARY_PATH)) path = path.slice(0, -SUMMARY_PATH.length);
  return `${url.origin}${path}`;
}

/** Why an address's summary could not be read, as the admin is told. */
function readRefusal(url: string, error: unknown): ApiError {
  if (error instanceof FeedFetchError) {
    // A page that answers but not with a summary (404, an HTML sign-in page behind a redirect) is not in the format.
    if (error.kind === 'http' && error.status !== undefined && error.status < 500 && error.status !== 429 && error.status !== 408) {
      return new ApiError(400, 'not_statuspage', `${NOT_STATUSPAGE_MESSAGE}: GET ${url}${SUMMARY_PATH} answered HTTP ${error.status}`);
    }
    if (error.kind === 'too_large') return new ApiError(400, 'not_statuspage', `${NOT_STATUSPAGE_MESSAGE}: its summary is too long (${error.message})`);
    return new ApiError(400, 'source_unreachable', `this address could not be read, so it was not added: ${error.message}`);
  }
  throw error;
}

/** A source as a subscription form offers it: its id, its name, and the services its incidents may name. */
export type SourceChoice = { id: string; name: string; services: string[] };

/**
 * The sources a subscription may choose, beside the main feed (whose services the form knows):
 * each added page with its components as services, as its last good read showed them (none
 * before its first).
 */
export async function sourceChoices(store: Pick<SourceStore, 'listSources' | 'allComponentStates'>): Promise<SourceChoice[]> {
  const [sources, components] = await Promise.all([store.listSources(), store.allComponentStates()]);
  return sources.map((s) => ({ id: s.id, name: s.name, services: componentServiceNames(components.get(s.id) ?? []) }));
}

/** Most sources an `unknown_source` error names: the rest are counted. */
const KNOWN_SOURCES_SHOWN_MAX = 20;

/**
 * A 400 `unknown_source` when a source id asked for is not one: a subscription to a page not
 * watched would silently never receive anything. Checked when a subscription is made or changed;
 * a source removed later simply sends nothing more.
 */
export async function requireKnownSources(store: Pick<SourceStore, 'listSources'>, field: string, asked: readonly string[] | undefined): Promise<void> {
  const wanted = (asked ?? []).filter((id) => id !== MAIN_FEED_SOURCE);
  if (wanted.length === 0) return;
  const sources = await store.listSources();
  const ids = new Set(sources.map((s) => s.id));
  const unknown = [...new Set(wanted.filter((id) => !ids.has(id)))];
  if (unknown.length === 0) return;
  const known = [`${MAIN_FEED_SOURCE} (the main feed)`, ...sources.map((s) => `${s.id} (${s.name})`)];
  const shown = known.slice(0, KNOWN_SOURCES_SHOWN_MAX).join(', ');
  const more = known.length > KNOWN_SOURCES_SHOWN_MAX ? ` and ${known.length - KNOWN_SOURCES_SHOWN_MAX} more` : '';
  throw new ApiError(
    400,
    'unknown_source',
    `${field}: unknown source ${unknown
      .slice(0, 5)
      .map((id) => JSON.stringify(id))
      .join(', ')}; ids are as GET /api/sources lists them, known: ${shown}${more}`,
  );
}

function refuseMainFeed(id: string): void {
  if (id === MAIN_FEED_SOURCE) throw new ApiError(400, 'invalid_request', 'the main feed is set by STATUS_URL and cannot be removed');
}

export function createSourceService(deps: SourceServiceDeps): SourceService {
  const { store, clock } = deps;

  const viewOf = (source: StoredSource, now: number): SourceView => ({
    id: source.id,
    kind: source.kind,
    name: source.name,
    url: source.url,
    createdAt: source.createdAt,
    state: stateOf(assessKnowledge({ lastSuccessAt: source.poll.lastSuccessAt, now, consecutiveFailures: source.poll.consecutiveFailures })),
    lastSuccessAt: source.poll.lastSuccessAt,
    consecutiveFailures: source.poll.consecutiveFailures,
  });

  return {
    async add(input) {
      const url = normaliseSourceUrl(input.url);
      const check = deps.checkTarget(url);
      if (!check.ok) {
        const message = `url is not allowed: ${check.reason}`;
        throw new ApiError(400, 'invalid_request', check.privateTarget ? withAllowPrivateHint(message) : message);
      }
      let name = input.name?.trim();
      if (name !== undefined && (name.length === 0 || name.length > SOURCE_NAME_MAX_CHARS)) {
        throw new ApiError(400, 'invalid_request', `name: between 1 and ${SOURCE_NAME_MAX_CHARS} characters`);
      }
      let summaryText: string;
      try {
        summaryText = (await deps.openPage(url).get(SUMMARY_PATH)).body;
      } catch (error) {
        throw readRefusal(url, error);
      }
      try {
        const summary = parseSummary(summaryText);
        name ??= wellFormedPrefix(summary.page.name.trim(), SOURCE_NAME_MAX_CHARS) || new URL(url).host;
      } catch (error) {
        if (error instanceof NotStatuspageError) throw new ApiError(400, 'not_statuspage', error.message);
        throw error;
      }
      const record = { id: deps.newId(), kind: input.kind, name, url, createdAt: clock.now() };
      const outcome = await store.addSource(record, deps.maxSources);
      if (!outcome.added) {
        if (outcome.reason === 'duplicate_url') throw new ApiError(409, 'source_exists', `a source with the address ${url} exists already`);
        if (outcome.reason === 'purging') {
          throw new ApiError(409, 'source_purging', `the archive of the source at ${url} is still being deleted; add it again once that is done`);
        }
        throw new ApiError(409, 'too_many_sources', `at most ${deps.maxSources} sources exist at once (SOURCES_MAX); remove one first`);
      }
      return viewOf({ ...record, poll: NEVER_POLLED }, clock.now());
    },

    async list() {
      const now = clock.now();
      const [health, sources] = await Promise.all([store.feedHealth(), store.listSources()]);
      const main: SourceView = {
        id: MAIN_FEED_SOURCE,
        kind: 'vendor-feed',
        name: mainFeedName(deps.mainFeedUrl),
        url: deps.mainFeedUrl,
        createdAt: null,
        state: stateOf(assessKnowledge({ lastSuccessAt: health.lastSuccessAt, now, consecutiveFailures: health.consecutiveFailures })),
        lastSuccessAt: health.lastSuccessAt,
        consecutiveFailures: health.consecutiveFailures,
      };
      return [main, ...sources.map((s) => viewOf(s, now))];
    },

    async remove(id) {
      refuseMainFeed(id);
      return store.removeSource(id);
    },

    async purge(id) {
      refuseMainFeed(id);
      const now = clock.now();
      if (!(await store.beginSourcePurge(id, now))) return null;
      const run = await runPurgeSteps(store, id, { batchRows: PURGE_BATCH_ROWS, maxSteps: PURGE_STEPS_PER_REQUEST, nowMs: now });
      if (run.done) return { archive: 'deleted' };
      return { archive: 'deleting', left: await store.sourceArchiveLeft(id, ARCHIVE_LEFT_CAP) };
    },
  };
}
