/**
 * The sources in SQLite: the SourceStore port. The cap and the unique address are decided by the
 * database in one conditional INSERT, so two admins adding at once (or two processes) never pass
 * the cap; the components are written in one statement from a JSON list (json_each), the same on D1.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { BlindSpell, SourcePollState, SourceStore, SourceValidators, StoredComponentState, StoredSource } from '../core/ports.ts';
import { BLIND_SPELLS_PER_SOURCE } from '../core/retention.ts';
import { type ComponentState, MAIN_FEED_SOURCE, sourceLeaseName } from '../core/statuspage/mapping.ts';
import { type BatchStatement, changedRows, type SqliteConnection } from './sqlite-connection.ts';
import { SourceGoneError } from '../core/errors.ts';
import { acquireLeaseStatement, releaseLeaseStatement } from './sqlite-leases.ts';
import { archiveLeftStatement, purgeStepStatements } from './sqlite-source-purge.ts';
import * as t from './store-schema.ts';

function parseValidators(text: string): SourceValidators {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as SourceValidators) : {};
  } catch {
    // Validators are an optimisation: unreadable ones cost one unconditional read, nothing more.
    return {};
  }
}

const toSource = (row: typeof t.sources.$inferSelect): StoredSource => ({
  id: row.id,
  kind: row.kind,
  name: row.name,
  url: row.url,
  createdAt: row.createdMs,
  poll: {
    validators: parseValidators(row.validators),
    lastSuccessAt: row.lastSuccessMs,
    lastFailureAt: row.lastFailureMs,
    lastError: row.lastError,
    consecutiveFailures: row.consecutiveFailures,
    blindSince: row.blindSinceMs,
    blindToldAt: row.blindToldMs,
  },
});

const toComponent = (row: typeof t.sourceComponents.$inferSelect): StoredComponentState => ({
  id: row.componentId,
  name: row.name,
  status: row.status as ComponentState['status'],
  vendorStatus: row.vendorStatus,
  groupId: row.groupId,
  position: row.position,
  isGroup: row.isGroup === 1,
  updatedAt: row.updatedMs,
});

// One row per component from the JSON list; a state that did not change keeps its time. The page's
// own word decides: two words we do not know are two states, and a component event's id names
// the instant its previous state began (component-events.ts).
const UPSERT_COMPONENTS = `
  INSERT INTO source_components (source_id, component_id, name, group_id, is_group, position, status, vendor_status, updated_ms)
  SELECT ?, json_extract(j.value, '$.id'), json_extract(j.value, '$.name'), json_extract(j.value, '$.groupId'),
         json_extract(j.value, '$.isGroup'), json_extract(j.value, '$.position'), json_extract(j.value, '$.status'),
         json_extract(j.value, '$.vendorStatus'), ?
  FROM json_each(?) AS j WHERE EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)
  ON CONFLICT (source_id, component_id) DO UPDATE SET
    name = excluded.name, group_id = excluded.group_id, is_group = excluded.is_group, position = excluded.position,
    updated_ms = CASE WHEN source_components.vendor_status = excluded.vendor_status THEN source_components.updated_ms ELSE excluded.updated_ms END,
    status = excluded.status, vendor_status = excluded.vendor_status`;

const DROP_ABSENT_COMPONENTS = `
  DELETE FROM source_components WHERE source_id = ?
    AND component_id NOT IN (SELECT json_extract(j.value, '$.id') FROM json_each(?) AS j)`;

/**
 * Recording a blind spell with the read that ended it (params: source id, since, until, source id
 * twice): the main feed's always, a source's only while it is watched, as its state itself.
 * Written twice (a save or a piece retried, two processes that read the same last good read),
 * it is one spell, reaching to the later end.
 */
const INSERT_SPELL = `
  INSERT INTO source_blind_spells (source_id, since_ms, until_ms)
  SELECT ?, ?, ? WHERE ? = '${MAIN_FEED_SOURCE}' OR EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)
  ON CONFLICT (source_id, since_ms) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)`;

/** Over the cap (params: source id, cap), and the source's second oldest spell (param: source id). */
const OVER_CAP = '(SELECT count(*) FROM source_blind_spells WHERE source_id = ?) > ?';
const SECOND_OLDEST = '(SELECT since_ms FROM source_blind_spells WHERE source_id = ? ORDER BY since_ms LIMIT 1 OFFSET 1)';
/**
 * Over the cap, the oldest spell reaches to the end of the next one, which then goes (below):
 * the read time between them counts as no data, rather than either spell's blindness as read.
 * One spell comes per save, so one merge keeps the cap. Params: source id five times, then the cap.
 */
const MERGE_OLDEST = `
  UPDATE source_blind_spells
  SET until_ms = max(until_ms, (SELECT until_ms FROM source_blind_spells WHERE source_id = ? AND since_ms = ${SECOND_OLDEST}))
  WHERE source_id = ? AND since_ms = (SELECT min(since_ms) FROM source_blind_spells WHERE source_id = ?) AND ${OVER_CAP}`;
/** Params: source id three times, then the cap. */
const DROP_MERGED = `DELETE FROM source_blind_spells WHERE source_id = ? AND since_ms = ${SECOND_OLDEST} AND ${OVER_CAP}`;

/**
 * Records the blind spell a good read of `sourceId` (a watched page, or the main feed) ended, as
 * coverage.ts blindSpellEndedBy decided it, and keeps the source's spells within
 * BLIND_SPELLS_PER_SOURCE: written with that read's state or run, in one atomic step.
 */
export function blindSpellStatements(sourceId: string, spell: BlindSpell): BatchStatement[] {
  const id = sourceId;
  return [
    { sql: INSERT_SPELL, params: [id, spell.since, spell.until, id, id] },
    { sql: MERGE_OLDEST, params: [id, id, id, id, id, BLIND_SPELLS_PER_SOURCE] },
    { sql: DROP_MERGED, params: [id, id, id, BLIND_SPELLS_PER_SOURCE] },
  ];
}

/** A watched source (param: its id): not removed, not purging. No poll takes a lease or writes for any other. */
const WATCHED = 'EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)';

/** A watched source's row, its columns named as Drizzle names them (toSource). Param: its id. */
const WATCHED_SOURCE_ROW = `
  SELECT id, kind, name, url, created_ms AS createdMs, validators, last_success_ms AS lastSuccessMs,
    last_failure_ms AS lastFailureMs, last_error AS lastError, consecutive_failures AS consecutiveFailures,
    blind_since_ms AS blindSinceMs, blind_told_ms AS blindToldMs, purging_ms AS purgingMs
  FROM sources WHERE id = ? AND purging_ms IS NULL`;

const SAVE_POLL_STATE = `
  UPDATE sources SET validators = ?, last_success_ms = ?, last_failure_ms = ?, last_error = ?, consecutive_failures = ?,
    blind_since_ms = ?, blind_told_ms = ?
  WHERE id = ? AND purging_ms IS NULL RETURNING id`;

/**
 * Makes `states` the source's components as of `now` (SourceStore.saveComponentStates), as
 * statements: also written inside a source's poll (sqlite-poll-apply.ts), with the events of the
 * changes, so a crash never keeps one without the other.
 */
export function componentStatesStatements(sourceId: string, states: readonly ComponentState[], now: number): BatchStatement[] {
  const list = JSON.stringify(
    states.map((s) => ({
      id: s.id,
      name: s.name,
      groupId: s.groupId,
      isGroup: s.isGroup ? 1 : 0,
      position: s.position,
      status: s.status,
      vendorStatus: s.vendorStatus,
    })),
  );
  return [
    { sql: UPSERT_COMPONENTS, params: [sourceId, now, list, sourceId] },
    { sql: DROP_ABSENT_COMPONENTS, params: [sourceId, list] },
  ];
}

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;

export function createSqliteSourceStore(connection: SqliteConnection): SourceStore {
  const { db } = connection;
  // Every poll of every source reads its row and saves its state: built and prepared once, as the
  // main poll's statements are (sqlite-statements.ts). Built again on each call, they cost more
  // than running them, and a quiet minute of 100 sources twice its bare fetches.
  // A purging source is neither found nor listed: no face shows it and no poll reads it.
  const sourceById = db
    .select()
    .from(t.sources)
    .where(and(eq(t.sources.id, p('id')), isNull(t.sources.purgingMs)))
    .prepare();
  const updatePollState = db
    .update(t.sources)
    .set({
      validators: v('validators'),
      lastSuccessMs: v('lastSuccessMs'),
      lastFailureMs: v('lastFailureMs'),
      lastError: v('lastError'),
      consecutiveFailures: v('consecutiveFailures'),
      blindSinceMs: v('blindSinceMs'),
      blindToldMs: v('blindToldMs'),
    })
    .where(and(eq(t.sources.id, p('id')), isNull(t.sources.purgingMs)))
    .prepare();
  // Every rebuild of the dashboard's list of pages and of the subscription form reads them all.
  const everyComponent = db
    .select()
    .from(t.sourceComponents)
    .orderBy(asc(t.sourceComponents.sourceId), asc(t.sourceComponents.position), asc(t.sourceComponents.name), asc(t.sourceComponents.componentId))
    .prepare();
  return {
    async addSource(record, maxSources) {
      const [inserted, sameUrl] = await connection.runAtomically([
        {
          // Purging sources are not watched: they take no room under the cap.
          sql:
            'INSERT INTO sources (id, kind, name, url, created_ms) SELECT ?, ?, ?, ?, ? ' +
            'WHERE (SELECT count(*) FROM sources WHERE purging_ms IS NULL) < ? ON CONFLICT DO NOTHING RETURNING id',
          params: [record.id, record.kind, record.name, record.url, record.createdAt, maxSources],
        },
        { sql: 'SELECT purging_ms AS purging FROM sources WHERE url = ?', params: [record.url] },
      ]);
      if ((inserted?.length ?? 0) > 0) return { added: true };
      const same = sameUrl?.[0] as { purging: number | null } | undefined;
      if (same) return { added: false, reason: same.purging === null ? 'duplicate_url' : 'purging' };
      return { added: false, reason: 'full' };
    },

    async listSources() {
      const rows = await db.select().from(t.sources).where(isNull(t.sources.purgingMs)).orderBy(asc(t.sources.createdMs), asc(t.sources.id)).all();
      return rows.map(toSource);
    },

    async getSource(id) {
      const row = await sourceById.get({ id });
      return row ? toSource(row) : null;
    },

    async openSourcePoll(id, { holder, now, ttlMs }) {
      // The lease first, then the row, in one step: the row is what the last poll left.
      const [acquired, row] = await connection.runAtomically([
        acquireLeaseStatement({ name: sourceLeaseName(id), holder, now, ttlMs }, { sql: WATCHED, params: [id] }),
        { sql: WATCHED_SOURCE_ROW, params: [id] },
      ]);
      const found = row?.[0] as typeof t.sources.$inferSelect | undefined;
      return { acquired: acquired?.length === 1, source: found ? toSource(found) : null };
    },

    async removeSource(id) {
      const [, , , deleted] = await connection.runAtomically([
        { sql: 'DELETE FROM source_components WHERE source_id = ? AND EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)', params: [id, id] },
        { sql: 'DELETE FROM source_blind_spells WHERE source_id = ? AND EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)', params: [id, id] },
        // A poll that died holding the lease left its row: no poll of this id takes it again.
        { sql: `DELETE FROM leases WHERE name = ? AND EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)`, params: [sourceLeaseName(id), id] },
        // A purging source's row stays until its purge ends: deleting it here would strand the rest of its archive.
        { sql: 'DELETE FROM sources WHERE id = ? AND purging_ms IS NULL RETURNING id', params: [id] },
      ]);
      return (deleted?.length ?? 0) > 0;
    },

    async beginSourcePurge(id, now) {
      const [marked] = await connection.runAtomically([
        { sql: 'UPDATE sources SET purging_ms = coalesce(purging_ms, ?) WHERE id = ? RETURNING id', params: [now, id] },
        { sql: 'DELETE FROM source_components WHERE source_id = ?', params: [id] },
        // At most BLIND_SPELLS_PER_SOURCE rows: no need of the purge's steps.
        { sql: 'DELETE FROM source_blind_spells WHERE source_id = ?', params: [id] },
        { sql: 'DELETE FROM leases WHERE name = ? AND EXISTS (SELECT 1 FROM sources WHERE id = ?)', params: [sourceLeaseName(id), id] },
      ]);
      return (marked?.length ?? 0) > 0;
    },

    async purgeSourceStep(id, limit, now) {
      const results = await connection.runAtomically(purgeStepStatements(id, limit, now));
      // Each delete returns a row per row it removed (the source's own included); the last
      // statement, a read, says whether the source is still purging.
      const removedRows = results.slice(0, -1).reduce((sum, rows) => sum + rows.length, 0);
      return { removedRows, done: (results.at(-1)?.length ?? 0) === 0 };
    },

    async purgingSources() {
      const rows = await db
        .select({ id: t.sources.id })
        .from(t.sources)
        .where(sql`${t.sources.purgingMs} IS NOT NULL`)
        .orderBy(asc(t.sources.purgingMs), asc(t.sources.id))
        .all();
      return rows.map((row) => row.id);
    },

    async sourceArchiveLeft(id, cap) {
      const statement = archiveLeftStatement(id, cap);
      const [row] = await connection.all<{ incidents: number; events: number }>(statement.sql, statement.params);
      return { incidents: Number(row?.incidents ?? 0), events: Number(row?.events ?? 0) };
    },

    async savePollState(id, state: SourcePollState, endedSpell?: BlindSpell, releaseLeaseOf?: string) {
      const values = {
        id,
        validators: JSON.stringify(state.validators),
        lastSuccessMs: state.lastSuccessAt,
        lastFailureMs: state.lastFailureAt,
        lastError: state.lastError,
        consecutiveFailures: state.consecutiveFailures,
        blindSinceMs: state.blindSince,
        blindToldMs: state.blindToldAt,
      };
      // No spell ended and no lease to give back: the prepared statement alone.
      if (!endedSpell && releaseLeaseOf === undefined) {
        if (changedRows(await updatePollState.run(values)) === 0) throw new SourceGoneError(id);
        return;
      }
      // The spell, the state that ended it and the lease's release in one step: a process that
      // dies between them loses none, and never records a spell whose read is not saved.
      const list: BatchStatement[] = [
        ...(endedSpell ? blindSpellStatements(id, endedSpell) : []),
        {
          sql: SAVE_POLL_STATE,
          params: [
            values.validators,
            values.lastSuccessMs,
            values.lastFailureMs,
            values.lastError,
            values.consecutiveFailures,
            values.blindSinceMs,
            values.blindToldMs,
            id,
          ],
        },
      ];
      const saved = list.length - 1;
      // Given back whether or not the source is still watched: the poll ends here either way.
      if (releaseLeaseOf !== undefined) list.push(releaseLeaseStatement({ name: sourceLeaseName(id), holder: releaseLeaseOf }));
      const results = await connection.runAtomically(list);
      // The spell is written only for a watched source, as the state: neither was, when it is gone.
      if ((results[saved]?.length ?? 0) === 0) throw new SourceGoneError(id);
    },

    async blindSpells(sourceId, endedSinceMs) {
      const rows = await connection.rows<[number, number]>(
        'SELECT since_ms, until_ms FROM source_blind_spells WHERE source_id = ? AND until_ms >= ? ORDER BY since_ms LIMIT ?',
        [sourceId, endedSinceMs, BLIND_SPELLS_PER_SOURCE],
      );
      return rows.map(([since, until]) => ({ since, until }));
    },

    async componentStates(sourceId) {
      const rows = await db
        .select()
        .from(t.sourceComponents)
        .where(eq(t.sourceComponents.sourceId, sourceId))
        .orderBy(asc(t.sourceComponents.position), asc(t.sourceComponents.name), asc(t.sourceComponents.componentId))
        .all();
      return rows.map(toComponent);
    },

    async allComponentStates() {
      // A removed or purging source's components went with it in the same step: every row here is a watched page's.
      const bySource = new Map<string, StoredComponentState[]>();
      for (const row of await everyComponent.all()) {
        const list = bySource.get(row.sourceId);
        if (list) list.push(toComponent(row));
        else bySource.set(row.sourceId, [toComponent(row)]);
      }
      return bySource;
    },

    async saveComponentStates(sourceId, states, now) {
      await connection.runAtomically(componentStatesStatements(sourceId, states, now));
    },
  };
}
