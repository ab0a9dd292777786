/**
 * The sources in SQLite: the SourceStore port. The cap and the unique address are decided by the
 * database in one conditional INSERT, so two admins adding at once (or two processes) never pass
 * the cap; the components are written in one statement from a JSON list (json_each), the same on D1.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { SourcePollState, SourceStore, SourceValidators, StoredComponentState, StoredSource } from '../core/ports.ts';
import type { ComponentState } from '../core/statuspage/mapping.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
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

// One row per component from the JSON list; a status that did not change keeps its time.
const UPSERT_COMPONENTS = `
  INSERT INTO source_components (source_id, component_id, name, group_id, is_group, position, status, vendor_status, updated_ms)
  SELECT ?, json_extract(j.value, '$.id'), json_extract(j.value, '$.name'), json_extract(j.value, '$.groupId'),
         json_extract(j.value, '$.isGroup'), json_extract(j.value, '$.position'), json_extract(j.value, '$.status'),
         json_extract(j.value, '$.vendorStatus'), ?
  FROM json_each(?) AS j WHERE EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)
  ON CONFLICT (source_id, component_id) DO UPDATE SET
    name = excluded.name, group_id = excluded.group_id, is_group = excluded.is_group, position = excluded.position,
    updated_ms = CASE WHEN source_components.status = excluded.status THEN source_components.updated_ms ELSE excluded.updated_ms END,
    status = excluded.status, vendor_status = excluded.vendor_status`;

const DROP_ABSENT_COMPONENTS = `
  DELETE FROM source_components WHERE source_id = ?
    AND component_id NOT IN (SELECT json_extract(j.value, '$.id') FROM json_each(?) AS j)`;

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

    async removeSource(id) {
      const [, deleted] = await connection.runAtomically([
        { sql: 'DELETE FROM source_components WHERE source_id = ? AND EXISTS (SELECT 1 FROM sources WHERE id = ? AND purging_ms IS NULL)', params: [id, id] },
        // A purging source's row stays until its purge ends: deleting it here would strand the rest of its archive.
        { sql: 'DELETE FROM sources WHERE id = ? AND purging_ms IS NULL RETURNING id', params: [id] },
      ]);
      return (deleted?.length ?? 0) > 0;
    },

    async beginSourcePurge(id, now) {
      const [marked] = await connection.runAtomically([
        { sql: 'UPDATE sources SET purging_ms = coalesce(purging_ms, ?) WHERE id = ? RETURNING id', params: [now, id] },
        { sql: 'DELETE FROM source_components WHERE source_id = ?', params: [id] },
      ]);
      return (marked?.length ?? 0) > 0;
    },

    async purgeSourceStep(id, limit) {
      const results = await connection.runAtomically(purgeStepStatements(id, limit));
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

    async savePollState(id, state: SourcePollState) {
      await updatePollState.run({
        id,
        validators: JSON.stringify(state.validators),
        lastSuccessMs: state.lastSuccessAt,
        lastFailureMs: state.lastFailureAt,
        lastError: state.lastError,
        consecutiveFailures: state.consecutiveFailures,
        blindSinceMs: state.blindSince,
        blindToldMs: state.blindToldAt,
      });
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

    async saveComponentStates(sourceId, states, now) {
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
      await connection.runAtomically([
        { sql: UPSERT_COMPONENTS, params: [sourceId, now, list, sourceId] },
        { sql: DROP_ABSENT_COMPONENTS, params: [sourceId, list] },
      ]);
    },
  };
}
