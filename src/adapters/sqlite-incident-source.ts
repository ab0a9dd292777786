/**
 * sourceOfIncidentId's rule (src/core/statuspage/mapping.ts) in SQL, for the statements that
 * filter or show by source: a watched page's incident ids are `sourceId:vendorId`, the main
 * feed's hold no colon. One place, so the SQL and the JavaScript cannot drift apart.
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { MAIN_FEED_SOURCE } from '../core/statuspage/mapping.ts';

/** An id column, or its SQL text in a statement written by hand (`i.id`). */
type IdSql = SQLWrapper | string;

const idOf = (id: IdSql) => (typeof id === 'string' ? sql.raw(id) : id);

/** True for an id of the main feed's incidents (or of their events). */
export function isMainFeedIncidentId(id: IdSql): SQL {
  return sql`instr(${idOf(id)}, ':') = 0`;
}

/** The source the incident came from, as the API names it: what comes before the colon, or the main feed. */
export function sourceOfIncidentIdSql(id: IdSql): SQL<string> {
  return sql<string>`(CASE WHEN ${isMainFeedIncidentId(id)} THEN ${sql.raw(`'${MAIN_FEED_SOURCE}'`)} ELSE substr(${idOf(id)}, 1, instr(${idOf(id)}, ':') - 1) END)`;
}

/** A piece of SQL as text, for statements kept as text: it must bind no values. */
export function sqlText(piece: SQL): string {
  const { sql: text, params } = new SQLiteSyncDialect().sqlToQuery(piece);
  if (params.length > 0) throw new Error('a piece of SQL kept as text binds no values: write constants in the SQL');
  return text;
}
