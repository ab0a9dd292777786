/**
 * The sources in SQLite: the SourceStore port. The cap and the unique address are decided by the
 * database in one conditional INSERT, so two admins adding at once (or two processes) never pass
 * the cap; the components are written in one statement from a JSON list (json_each), the same on D1.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { SourcePollState, SourceStore, SourceValidators, StoredComponentState, StoredSource } from '../core/ports.ts';
import type { ComponentState } from '../core/statuspage/mapping.ts';
import type { BatchStatement, SqliteConnection } from './sqlite-connection.ts';
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
  FROM json_each(?) AS j WHERE EXISTS (SELECT 1 FROM sources WHERE id = ?)
  ON CONFLICT (source_id, component_id) DO UPDATE SET
    name = excluded.name, group_id = excluded.group_id, is_group = excluded.is_group, position = excluded.position,
    updated_ms = CASE WHEN source_components.vendor_status = excluded.vendor_status THEN source_components.updated_ms ELSE excluded.updated_ms END,
    status = excluded.status, vendor_status = excluded.vendor_status`;

const DROP_ABSENT_COMPONENTS = `
  DELETE FROM source_components WHERE source_id = ?
    AND component_id NOT IN (SELECT json_extract(j.value, '$.id') FROM json_each(?) AS j)`;

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
  const sourceById = db
    .select()
    .from(t.sources)
    .where(eq(t.sources.id, p('id')))
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
    .where(eq(t.sources.id, p('id')))
    .prepare();
  return {
    async addSource(record, maxSources) {
      const [inserted, sameUrl] = await connection.runAtomically([
        {
          sql:
            'INSERT INTO sources (id, kind, name, url, created_ms) SELECT ?, ?, ?, ?, ? ' +
            'WHERE (SELECT count(*) FROM sources) < ? ON CONFLICT DO NOTHING RETURNING id',
          params: [record.id, record.kind, record.name, record.url, record.createdAt, maxSources],
        },
        { sql: 'SELECT id FROM sources WHERE url = ?', params: [record.url] },
      ]);
      if ((inserted?.length ?? 0) > 0) return { added: true };
      return { added: false, reason: (sameUrl?.length ?? 0) > 0 ? 'duplicate_url' : 'full' };
    },

    async listSources() {
      const rows = await db.select().from(t.sources).orderBy(asc(t.sources.createdMs), asc(t.sources.id)).all();
      return rows.map(toSource);
    },

    async getSource(id) {
      const row = await sourceById.get({ id });
      return row ? toSource(row) : null;
    },

    async removeSource(id) {
      const [, deleted] = await connection.runAtomically([
        { sql: 'DELETE FROM source_components WHERE source_id = ?', params: [id] },
        { sql: 'DELETE FROM sources WHERE id = ? RETURNING id', params: [id] },
      ]);
      return (deleted?.length ?? 0) > 0;
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
      await connection.runAtomically(componentStatesStatements(sourceId, states, now));
    },
  };
}
