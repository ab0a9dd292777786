/**
 * The archive's write side in SQLite: the ArchiveWrites port. Each planned piece of a poll is
 * written as one fixed list of statements (sqlite-poll-apply.ts), one transaction or one D1 batch,
 * so a crash, a full disk or a revision that moved leaves the archive as it was.
 */
import type { IncidentWrite } from '../core/diff.ts';
import { RevisionConflictError, SourceGoneError } from '../core/errors.ts';
import { isMonitorEvent, MONITOR_EVENT_TYPES, type MonitorEvent } from '../core/events.ts';
import type { ArchiveWrites, LastDiff } from '../core/ports.ts';
import { createDiffedFeedCodec, type DiffedFeedCodec } from './sqlite-diffed-feed.ts';
import { acquireLeaseStatement, releaseLeaseStatement } from './sqlite-leases.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { createIncidentRows } from './sqlite-incident-rows.ts';
import { applyPollStatements, isRevisionGuardFailure, isSourceWriteGuardFailure, pollRunStatements, READ_LAST_DIFF } from './sqlite-poll-apply.ts';
import { GENERATION_KEY, SEEDED_KEY } from './sqlite-meta-keys.ts';
import { toStatusEvent } from './sqlite-rows.ts';
import { READ_SUBSCRIPTIONS_VERSION, subscriptionsVersionOf } from './sqlite-subscriptions.ts';
import type { PollStatements } from './sqlite-statements.ts';
import type * as t from './store-schema.ts';

/**
 * Through the events_type index, which holds few monitor events (at most two per quiet time), so
 * the cost does not grow with the archive.
 */
const LATEST_MONITOR_EVENT = `SELECT id, type, incident_id AS incidentId, revision, occurred_ms AS occurredMs, detected_ms AS detectedMs,
    backfill, data_json AS dataJson, poll_run_id AS pollRunId, seq
  FROM events WHERE seq = (SELECT max(seq) FROM events WHERE type IN (SELECT value FROM json_each('${JSON.stringify(MONITOR_EVENT_TYPES)}')))`;
const READ_SEEDED = `SELECT 1 FROM meta WHERE key = '${SEEDED_KEY}'`;
/** Through the poll_runs_outcome index: one seek per good outcome, whatever the run history holds. */
export const READ_LAST_GOOD_READ = `SELECT max(started_ms) AS at FROM poll_runs WHERE outcome IN ('ok', 'partial')`;

function monitorEventOf(rows: unknown[] | undefined): MonitorEvent | null {
  const row = rows?.[0] as (typeof t.events.$inferSelect & { backfill: number | boolean }) | undefined;
  if (!row) return null;
  const event = toStatusEvent({ ...row, backfill: Boolean(row.backfill) });
  return isMonitorEvent(event) ? event : null;
}

type LastDiffRow = { generation: string | null; diffed: string | null };

function lastDiffOf(rows: unknown[] | undefined, codec: DiffedFeedCodec): LastDiff {
  const row = rows?.[0] as LastDiffRow | undefined;
  return { generation: Number(row?.generation ?? 0), diffed: row?.diffed ? codec.parse(row.diffed) : null };
}

/** The generation the apply list's last statement read (READ_GENERATION). */
function generationOf(rows: unknown[] | undefined): number {
  const row = rows?.[0] as { value?: string } | undefined;
  return Number(row?.value ?? 0);
}

export function createSqliteArchiveWrites(connection: SqliteConnection, st: PollStatements, rejectedMaxBytes: number): ArchiveWrites {
  const { loadByIds } = createIncidentRows(st);
  const diffedFeeds = createDiffedFeedCodec();

  async function readGeneration(): Promise<number> {
    return Number((await st.metaValue.get({ key: GENERATION_KEY }))?.value ?? 0);
  }

  /**
   * Which incident moved, for the error: read after the failed list rolled back, so nothing is
   * decided by it. Revisions only grow, so the one that moved still differs.
   */
  async function revisionConflict(writes: readonly IncidentWrite[], cause: unknown): Promise<Error> {
    const current = await st.revisions.all({ ids: JSON.stringify(writes.map((w) => w.incident.id)) });
    const revisionOf = new Map(current.map((row) => [row.id, row.revision]));
    const moved = writes.find((w) => (revisionOf.get(w.incident.id) ?? null) !== w.baseRevision);
    if (!moved) return cause instanceof Error ? cause : new Error(String(cause));
    return new RevisionConflictError(moved.incident.id, moved.baseRevision, revisionOf.get(moved.incident.id) ?? null, { cause });
  }

  return {
    async loadIncidents(ids) {
      return new Map((await loadByIds(ids)).map((incident) => [incident.id, incident]));
    },

    async loadRevisions(ids) {
      return new Map((await st.revisions.all({ ids: JSON.stringify(ids) })).map((row) => [row.id, row.revision]));
    },

    async isSeeded() {
      return (await connection.all(READ_SEEDED, [])).length > 0;
    },

    async applyPoll(input) {
      // One transaction (a D1 batch on Workers): the events and the deliveries they cause are
      // written together or not at all (the outbox). better-sqlite3 rolls the whole of it back on
      // any throw, SQLITE_FULL included.
      let results: unknown[][];
      try {
        results = await connection.runAtomically(applyPollStatements(input, rejectedMaxBytes, diffedFeeds.members));
      } catch (error) {
        if (isRevisionGuardFailure(error)) throw await revisionConflict(input.plan.writes, error);
        if (input.source !== undefined && isSourceWriteGuardFailure(error)) throw new SourceGoneError(input.source, { cause: error });
        throw error;
      }
      return generationOf(results.at(-1));
    },

    async archiveGeneration() {
      return readGeneration();
    },

    async lastDiff() {
      return lastDiffOf(await connection.all<LastDiffRow>(READ_LAST_DIFF, []), diffedFeeds);
    },

    async openPoll(claim) {
      const [acquired, lastDiff, latestMonitor, seeded, lastGoodRead, subscriptionsVersion] = await connection.runAtomically([
        acquireLeaseStatement(claim),
        { sql: READ_LAST_DIFF, params: [] },
        { sql: LATEST_MONITOR_EVENT, params: [] },
        { sql: READ_SEEDED, params: [] },
        { sql: READ_LAST_GOOD_READ, params: [] },
        { sql: READ_SUBSCRIPTIONS_VERSION, params: [] },
      ]);
      return {
        acquired: acquired?.length === 1,
        lastDiff: lastDiffOf(lastDiff, diffedFeeds),
        latestMonitor: monitorEventOf(latestMonitor),
        seeded: (seeded?.length ?? 0) > 0,
        lastGoodReadAt: (lastGoodRead?.[0] as { at: number | null } | undefined)?.at ?? null,
        subscriptionsVersion: subscriptionsVersionOf(subscriptionsVersion),
      };
    },

    async latestMonitorEvent() {
      return monitorEventOf(await connection.all(LATEST_MONITOR_EVENT, []));
    },

    async recordPollRun(run, rejected, releaseLease, endedSpell) {
      const list = pollRunStatements(run, rejected, rejectedMaxBytes, endedSpell);
      if (releaseLease) list.push(releaseLeaseStatement(releaseLease));
      await connection.runAtomically(list);
    },
  };
}
