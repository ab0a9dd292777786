/**
 * Keeps each group subscription's member list in step with the SCIM directory: reads the group and
 * its members' users (listing pages or one GET each, whichever costs fewer requests), works out
 * who was added and removed and why (core/scim-group.ts), and writes it all in one step. A failed
 * read keeps the last good list, says so in the link's outcome and the audit list, and removes nobody.
 */
import { closeNames } from '../core/close-names.ts';
import { createSkipTally, logSkips, type SkipTally } from '../core/outside-records.ts';
import { createSlots } from './concurrency.ts';
import { ApiError } from '../core/errors.ts';
import type { Clock, Logger } from '../core/ports.ts';
import type { GroupDirectoryStore, GroupLink, ScimDirectory, UsersPage } from '../core/ports/scim-directory.ts';
import { ScimCallError } from '../core/scim-errors.ts';
import { chooseUserReads, departedMembers, diffMembers, memberListChanges, SCIM_PAGE_SIZE, type MemberChange } from '../core/scim-group.ts';
import { MAX_LIST_PAGES, nextPage, type DirectoryGroup, type DirectoryUser, type SkippedRecord } from '../core/scim-resources.ts';
import { wellFormedPrefix } from '../core/well-formed-text.ts';

/** Audit entries kept per group: enough for months of a busy team's changes, small enough to show. */
const GROUP_LOG_LIMIT = 500;
/** Groups one scheduled round syncs; the oldest first, so every group gets its turn. */
const GROUPS_PER_ROUND = 50;
/**
 * How long one sync may take in all, waits for the rate limits included: the spec's largest group
 * reads in a few seconds, and a directory that answers slowly or never ends must not hold a sync
 * (or the process's shutdown) any longer.
 */
export const SYNC_DEADLINE_MS = 60_000;
/** How soon an alert held for its group's sync looks again whether the sync ended. */
const ALERT_RECHECK_MS = 2_000;
/** How often the scheduled round runs, on either runtime (node-cron, the Worker's Cron Trigger). */
const SCHEDULED_ROUND_EVERY_MS = 60_000;
/** Syncs one process runs at once, scheduled or started for an alert: the directory's rate limits are shared. */
const MAX_CONCURRENT_SYNCS = 2;
/** Skipped records one sync adds to the audit list at most: a directory full of broken records does not drown the list at once. */
const MAX_SKIPS_LOGGED = 50;
/** Bytes one sync reads at most in all: the 200 list pages it may read at about 1.5 MB each, and a little over. */
const SYNC_MAX_BYTES = 320 * 1024 * 1024;

export type GroupSyncDeps = {
  store: GroupDirectoryStore;
  /** Null while SCIM_TOKEN is unset: every sync fails with not_configured. */
  directory: ScimDirectory | null;
  clock: Clock;
  logger: Logger;
  /** SCIM_SYNC_SECONDS: how old a member list may get. */
  syncSeconds: number;
  logLimit?: number;
  /** How long one sync may take; SYNC_DEADLINE_MS by default. */
  syncDeadlineMs?: number;
  /** Bytes one sync may read in all; SYNC_MAX_BYTES by default. */
  syncMaxBytes?: number;
  /** Aborted when the process stops: every running sync ends at once, as failed, keeping its last good list. */
  signal?: AbortSignal;
  /**
   * Whether an alert that finds its list stale starts the sync itself, in the background (Node; the
   * default), or leaves it to the scheduled round (a Worker: its queue invocations keep their
   * subrequests for mail, and the cron syncs within a minute).
   */
  syncsOnDemand?: boolean;
  /** Told once when a sync finds a group gone from the directory (app/admin-notice.ts). */
  announceGroupDeleted?: (link: GroupLink) => Promise<void>;
};

/** Whether an alert may go out now with the member list as it is, or when to look again. */
/** `ready` carries the group's link as this look read it (null: no such link), so the sender need not read it again. */
export type AlertReadiness = { kind: 'ready'; link: GroupLink | null } | { kind: 'wait'; untilMs: number };

/** Null for a refusal that says the text is no group id (a 4xx other than auth), the error otherwise. */
function notAnId(error: unknown): null {
  if (error instanceof ScimCallError && error.status !== null && error.status >= 400 && error.status < 500 && ![401, 403, 429].includes(error.status))
    return null;
  throw error;
}

export type SyncReport = {
  subscriptionId: string;
  /** `superseded`: another sync of the same group wrote first; its list stands. */
  outcome: 'ok' | 'failed' | 'superseded';
  groupDeleted: boolean;
  members: number;
  changes: MemberChange[];
  error: string | null;
  /** SCIM requests this sync made. */
  requests: number;
  at: number;
};

export type GroupSync = ReturnType<typeof createGroupSync>;

export function createGroupSync(deps: GroupSyncDeps) {
  const { store, clock, logger } = deps;
  const logLimit = deps.logLimit ?? GROUP_LOG_LIMIT;
  const maxAgeMs = deps.syncSeconds * 1000;
  // One sync per group at a time in this process: a scheduled sync and one an alert started share
  // one run instead of reading the directory twice.
  const running = new Map<string, Promise<SyncReport>>();
  // At most MAX_CONCURRENT_SYNCS read a directory at once, whoever asked (the round, an alert, an admin).
  const slots = createSlots(MAX_CONCURRENT_SYNCS);

  async function announceDeleted(link: GroupLink): Promise<void> {
    try {
      if (deps.announceGroupDeleted) await deps.announceGroupDeleted(link);
      else logger.warn("a group subscription's group was deleted from the directory", { subscription: link.subscriptionId, group: link.groupId });
    } catch (error) {
      logger.warn('could not tell the admin of the deleted group', {
        subscription: link.subscriptionId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Ends one sync at its deadline, or at once when the process stops. */
  function syncSignal(): AbortSignal {
    const deadline = AbortSignal.timeout(deps.syncDeadlineMs ?? SYNC_DEADLINE_MS);
    return deps.signal ? AbortSignal.any([deadline, deps.signal]) : deadline;
  }

  function requireDirectory(): ScimDirectory {
    if (!deps.directory) throw new ScimCallError('(no request)', 'not_configured', null, false, { detail: 'set SCIM_TOKEN (and SCIM_URL)' });
    return deps.directory;
  }

  /**
   * The users of `memberIds`, and what is known of `departed` former members, in the fewest
   * requests; and the members whose records were skipped (each read once: a skipped record on a
   * page is not asked for again).
   */
  async function readUsers(
    directory: ScimDirectory,
    memberIds: readonly string[],
    departed: readonly string[],
  ): Promise<{ users: Map<string, DirectoryUser>; skipped: Map<string, SkippedRecord> }> {
    const wanted = new Set([...memberIds, ...departed]);
    const users = new Map<string, DirectoryUser>();
    const skipped = new Map<string, SkippedRecord>();
    const take = (page: UsersPage) => {
      for (const u of page.users) if (wanted.has(u.id)) users.set(u.id, u);
      // A record without an id we can read may be anyone's: a member it was is read by id below.
      for (const r of page.skipped) if (r.userId !== null && wanted.has(r.userId)) skipped.set(r.userId, r);
    };
    const isRead = (id: string) => users.has(id) || skipped.has(id);
    // One wanted user: one GET beats any page. More: the first page also says how big the directory is.
    if (wanted.size >= 2) {
      let page = await directory.usersPage(1, SCIM_PAGE_SIZE);
      take(page);
      for (let pages = 1; ; pages += 1) {
        const listed = page.startIndex - 1 + page.users.length + page.skipped.length;
        const unread = [...wanted].filter((id) => !isRead(id)).length;
        if (unread === 0 || chooseUserReads({ unreadMembers: unread, totalUsers: page.totalResults, listedSoFar: listed }) === 'get') break;
        const next = nextPage(page.startIndex, page.users.length + page.skipped.length, page.totalResults);
        if (next.kind === 'done') break;
        if (next.kind === 'missing') throw new ScimCallError('GET /Users', 'missing_page', 200, true);
        // totalResults is the directory's word: one that keeps moving ahead (or lies) is not followed forever.
        if (pages >= MAX_LIST_PAGES) throw new ScimCallError('GET /Users', 'too_many_pages', 200, false, { detail: `${pages} pages read` });
        page = await directory.usersPage(next.startIndex, SCIM_PAGE_SIZE);
        take(page);
      }
    }
    for (const id of wanted) {
      if (isRead(id)) continue;
      try {
        const user = await directory.user(id);
        if (user) users.set(id, user);
      } catch (error) {
        if (!(error instanceof ScimCallError) || error.code !== 'invalid_record') throw error;
        skipped.set(id, { userId: id, reason: error.detail ?? error.meaning });
      }
    }
    return { users, skipped };
  }

  /**
   * The skipped records to log: those of members, at most MAX_SKIPS_LOGGED, without the ones the
   * audit list already says were skipped for the same reason (a record stays broken across many
   * syncs; the list would otherwise fill with it).
   */
  async function newSkips(subscriptionId: string, skipped: readonly SkippedRecord[]): Promise<SkippedRecord[]> {
    if (skipped.length === 0) return [];
    // A member's latest entry says whether their record is still the same broken one. A record with
    // no readable id has no member to follow: any skip of it logged for the same reason counts, and
    // entries of no member (a failed sync) say nothing of it.
    const latest = new Map<string, { change: string; detail: string | null }>();
    const idlessSkips = new Set<string | null>();
    for (const entry of await store.log(subscriptionId, null, logLimit)) {
      if (entry.userId === null) {
        if (entry.change === 'record skipped') idlessSkips.add(entry.detail);
      } else if (!latest.has(entry.userId)) latest.set(entry.userId, entry);
    }
    const fresh = skipped.filter((r) => {
      if (r.userId === null) return !idlessSkips.has(r.reason);
      const last = latest.get(r.userId);
      return !(last?.change === 'record skipped' && last.detail === r.reason);
    });
    return fresh.slice(0, MAX_SKIPS_LOGGED);
  }

  async function run(link: GroupLink): Promise<SyncReport> {
    const at = clock.now();
    const report = (fields: Partial<SyncReport>): SyncReport => ({
      subscriptionId: link.subscriptionId,
      outcome: 'ok',
      groupDeleted: false,
      members: 0,
      changes: [],
      error: null,
      requests: 0,
      at,
      ...fields,
    });
    // This sync's own requests, whatever other syncs make meanwhile.
    let view: ScimDirectory | null = null;
    const requests = () => view?.stats().requests ?? 0;
    const previous = await store.allMembers(link.subscriptionId);
    try {
      const directory = requireDirectory().bounded({ signal: syncSignal(), maxBytes: deps.syncMaxBytes ?? SYNC_MAX_BYTES });
      view = directory;
      const group: DirectoryGroup | null = await directory.group(link.groupId);
      const version = await directory.version();
      let current: DirectoryUser[] | null = null;
      let lookup = new Map<string, DirectoryUser>();
      const skipped: SkippedRecord[] = [...(group?.skipped ?? [])];
      if (group) {
        const departed = departedMembers(previous, new Set(group.memberIds));
        const read = await readUsers(directory, group.memberIds, departed);
        lookup = read.users;
        // A member id the directory has no user for cannot be mailed; it is left out, not guessed.
        // Nor can one whose record was skipped: it goes on the audit list with the reason instead.
        current = group.memberIds.flatMap((id) => lookup.get(id) ?? []);
        skipped.push(...group.memberIds.flatMap((id) => read.skipped.get(id) ?? []));
      }
      const skippedIds = new Set(skipped.map((r) => r.userId));
      // A member whose record was skipped is logged as that, not as one who left or was deactivated.
      const changes = diffMembers(previous, current, (id) => lookup.get(id)).filter((c) => !skippedIds.has(c.userId));
      const applied = await store.applySync(
        {
          subscriptionId: link.subscriptionId,
          revision: link.revision,
          at: clock.now(),
          version,
          groupName: group?.displayName ?? link.groupName,
          groupDeleted: group === null,
          ...memberListChanges(previous, current ?? []),
          memberCount: current?.length ?? 0,
          changes,
          skipped: await newSkips(link.subscriptionId, skipped),
        },
        logLimit,
      );
      if (!applied) return report({ outcome: 'superseded', members: previous.length, requests: requests() });
      // Said once: by the sync whose write marked the group gone.
      if (group === null && !link.groupDeleted) await announceDeleted(link);
      logger.info('group synced', {
        subscription: link.subscriptionId,
        members: current?.length ?? 0,
        changes: changes.length,
        skipped: skipped.length,
        requests: requests(),
      });
      return report({ groupDeleted: group === null, members: current?.length ?? 0, changes, requests: requests() });
    } catch (error) {
      if (!(error instanceof ScimCallError)) throw error;
      // The last good list stays: a read that failed says nothing about who left.
      const recorded = await store.recordSyncFailure(
        { subscriptionId: link.subscriptionId, revision: link.revision, at: clock.now(), error: error.message },
        logLimit,
      );
      // A good sync wrote after this one read: its outcome (and list) stands, not this failure.
      if (!recorded) return report({ outcome: 'superseded', members: previous.length, error: error.message, requests: requests() });
      logger.warn('group sync failed; the last good member list is kept', {
        subscription: link.subscriptionId,
        code: error.code,
        meaning: error.meaning,
        request: error.request,
        status: error.status,
      });
      return report({ outcome: 'failed', members: previous.length, error: error.message, requests: requests() });
    }
  }

  async function syncLink(link: GroupLink): Promise<SyncReport> {
    const inFlight = running.get(link.subscriptionId);
    if (inFlight) return inFlight;
    const started = slots.run(() => run(link)).finally(() => running.delete(link.subscriptionId));
    running.set(link.subscriptionId, started);
    return started;
  }

  // A list never read is always due: until one sync succeeds, nobody in the group can be alerted.
  const isStale = (link: GroupLink, now: number) => link.lastOkAt === null || link.syncedAt === null || now - link.syncedAt >= maxAgeMs;

  const syncsOnDemand = deps.syncsOnDemand ?? true;
  // An alert waits for the sync it started, or for the scheduled round's, which begins within a round.
  const alertWaitMs = (deps.syncDeadlineMs ?? SYNC_DEADLINE_MS) + (syncsOnDemand ? ALERT_RECHECK_MS : SCHEDULED_ROUND_EVERY_MS);

  /** Starts a sync nobody waits for, unless one runs for the group or the process runs as many as it may. */
  function startInBackground(link: GroupLink): void {
    if (running.has(link.subscriptionId) || running.size >= MAX_CONCURRENT_SYNCS) return;
    syncLink(link).catch((error: unknown) => {
      // Only the database gets here (a directory failure is a failed sync, kept and logged).
      logger.error('group sync failed to write', { subscription: link.subscriptionId, error: error instanceof Error ? error.message : String(error) });
    });
  }

  return {
    /** Syncs one group subscription now; 404 when the subscription is not a group subscription. */
    async syncGroup(subscriptionId: string): Promise<SyncReport> {
      const link = await store.groupLink(subscriptionId);
      if (!link) throw new ApiError(404, 'not_a_group_subscription', 'that subscription does not send to a directory group');
      return syncLink(link);
    },

    /**
     * Before an alert written at `alertAtMs` goes out: ready when the list is no older than
     * SCIM_SYNC_SECONDS; otherwise the sync starts in the background (or is left to the scheduled
     * round), and the alert waits until a sync ended after it was written, good or failed, or at
     * most the sync's deadline and a round. It never waits on the directory itself: a delivery
     * round goes on with every other subscription's deliveries.
     */
    async beforeAlert(subscriptionId: string, alertAtMs: number): Promise<AlertReadiness> {
      const link = await store.groupLink(subscriptionId);
      const now = clock.now();
      // Without a directory no sync can end: nothing to wait for.
      if (!link || !deps.directory || !isStale(link, now)) return { kind: 'ready', link };
      if (syncsOnDemand) startInBackground(link);
      const syncEndedSince = link.syncedAt !== null && link.syncedAt >= alertAtMs;
      const waitEndsAt = alertAtMs + alertWaitMs;
      if (syncEndedSince || now >= waitEndsAt) return { kind: 'ready', link };
      return { kind: 'wait', untilMs: Math.min(now + ALERT_RECHECK_MS, waitEndsAt) };
    },

    /** The scheduled round: every group whose list is older than SCIM_SYNC_SECONDS, oldest first. */
    async syncDue(): Promise<SyncReport[]> {
      const now = clock.now();
      if (!deps.directory) return [];
      return Promise.all((await store.groupLinks(GROUPS_PER_ROUND)).filter((link) => isStale(link, now)).map(syncLink));
    },

    /** The group `ref` names, by SCIM id or exact displayName: what a new group subscription points at. */
    async resolveGroup(ref: string): Promise<DirectoryGroup> {
      if (!deps.directory) throw new ApiError(409, 'directory_disabled', 'the SCIM directory is not configured: set SCIM_TOKEN (and SCIM_URL)');
      try {
        // An id has no spaces or slashes; a name may. Only what could be an id is tried as one, and a
        // refusal of it as an id (not a failure of the directory) sends the lookup on to the names.
        const byId = /^[A-Za-z0-9_-]{1,100}$/.test(ref) ? await deps.directory.group(ref).catch((error: unknown) => notAnId(error)) : null;
        if (byId) return byId;
        const names: string[] = [];
        // A group record not of the spec's shape is left out of the listing, logged, and named in a miss.
        const skips = createSkipTally();
        const group = await deps.directory.groupByName(
          ref,
          (name) => names.length < GROUP_NAMES_READ_MAX && names.push(name),
          (skip) => skips.add([skip]),
        );
        logSkips(logger, 'SCIM groups', skips);
        if (!group) throw new ApiError(404, 'group_not_found', groupNotFound(ref, names, skips));
        return group;
      } catch (error) {
        if (error instanceof ScimCallError) throw new ApiError(502, 'directory_unavailable', `the SCIM directory did not answer as expected: ${error.message}`);
        throw error;
      }
    },
  };
}

/** Group names kept from the listing a miss walked, to say which exist: the listing itself is bounded by its pages. */
const GROUP_NAMES_READ_MAX = 5_000;
/** Names a refusal lists, each at most NAME_SHOWN_MAX_CHARS: the refusal is read in a form, not a report. */
const GROUP_NAMES_SHOWN_MAX = 20;
const NAME_SHOWN_MAX_CHARS = 100;
/** Skipped group records a refusal names, each with its reason (the log names more). */
const SKIPS_SHOWN_MAX = 3;

/**
 * A refusal of a group reference that names none: what is closest ("did you mean"), which groups the
 * directory has, and the group records the listing skipped (the one meant may be among them).
 */
export function groupNotFound(ref: string, names: readonly string[], skips: SkipTally = { skipped: 0, records: [] }): string {
  const base = `the directory has no group with the id or display name ${quote(ref)}`;
  const skipped = skips.skipped === 0 ? '' : `; ${skippedGroups(skips)}`;
  if (names.length === 0) return `${base}, and lists no groups${skipped}`;
  const close = closeNames(ref, names, 3);
  const shown = names.slice(0, GROUP_NAMES_SHOWN_MAX).map(quote).join(', ');
  const more =
    names.length > GROUP_NAMES_SHOWN_MAX ? ` and ${names.length - GROUP_NAMES_SHOWN_MAX}${names.length >= GROUP_NAMES_READ_MAX ? '+' : ''} more` : '';
  return `${base}${close.length > 0 ? `; did you mean ${close.map(quote).join(' or ')}?` : ''}; its groups: ${shown}${more}${skipped}`;
}

/** The group records a listing skipped, as a refusal names them: each by its id (when readable) and reason. */
function skippedGroups(skips: SkipTally): string {
  const shown = skips.records.slice(0, SKIPS_SHOWN_MAX);
  const named = shown.map((r) => `${r.id === null ? 'a record without a readable id' : quote(r.id)} (${r.reason})`).join(', ');
  const more = skips.skipped > shown.length ? ` and ${skips.skipped - shown.length} more` : '';
  return `${skips.skipped} group record${skips.skipped === 1 ? '' : 's'} not of the spec's shape skipped: ${named}${more}`;
}

/** A name or id as a refusal shows it: quoted, at most NAME_SHOWN_MAX_CHARS. */
const quote = (text: string) => JSON.stringify(wellFormedPrefix(text, NAME_SHOWN_MAX_CHARS));
