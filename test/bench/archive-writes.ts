/** Counts what a poll wrote: SQLite's own change counter, and a fingerprint of the archive tables. */
import type { SqliteArchive } from '../../src/entry/open-sqlite.ts';

/**
 * Row counts plus sums that move on any update the store makes (revision, last_seen_ms, a note's
 * changed_ms). Equal fingerprints mean the poll left the archive tables alone.
 */
export type ArchiveFingerprint = {
  incidents: number;
  incidentServices: number;
  notes: number;
  versions: number;
  events: number;
  revisionSum: number;
  lastSeenSum: number;
  noteChangedSum: number;
};

/** Everything SQLite counts as a changed row: archive tables, poll_runs and the poll lease alike. */
export type WriteCounters = { totalChanges: number; pollRuns: number };

type Handle = SqliteArchive['sqlite'];

export function writeCounters(sqlite: Handle): WriteCounters {
  return sqlite.prepare('SELECT total_changes() AS totalChanges, (SELECT count(*) FROM poll_runs) AS pollRuns').get() as WriteCounters;
}

export function archiveFingerprint(sqlite: Handle): ArchiveFingerprint {
  // sum() stays an exact 64-bit integer here (total() would round the millisecond sums).
  return sqlite
    .prepare(
      `SELECT
         (SELECT count(*) FROM incidents) AS incidents,
         (SELECT count(*) FROM incident_services) AS incidentServices,
         (SELECT count(*) FROM notes) AS notes,
         (SELECT count(*) FROM incident_versions) AS versions,
         (SELECT count(*) FROM events) AS events,
         (SELECT coalesce(sum(revision), 0) FROM incidents) AS revisionSum,
         (SELECT coalesce(sum(last_seen_ms), 0) FROM incidents) AS lastSeenSum,
         (SELECT coalesce(sum(changed_ms), 0) FROM notes) AS noteChangedSum`,
    )
    .get() as ArchiveFingerprint;
}

/** The names of the fingerprint fields that differ. */
export function fingerprintChanges(before: ArchiveFingerprint, after: ArchiveFingerprint): string[] {
  return (Object.keys(before) as (keyof ArchiveFingerprint)[]).filter((key) => before[key] !== after[key]);
}
