/**
 * The reads and leases of the poll path, built and prepared once. Drizzle building the SQL and
 * SQLite preparing it again on every call cost more than running it: a poll that changed one
 * incident spent 4 ms in applyPoll, mostly there. Lists of ids go in as one JSON parameter
 * (json_each), so every statement keeps one shape whatever the number of ids. The poll's writes
 * are a statement list of their own (sqlite-poll-apply.ts).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { SqlDb } from './sqlite-connection.ts';
import * as t from './store-schema.ts';

type Db = SqlDb;

const p = sql.placeholder;
/** A placeholder where Drizzle's types want SQL (update().set() takes no bare placeholders). */
const v = (name: string) => sql`${p(name)}`;
/** `column IN (the ids of a JSON array placeholder)`. */
const inJsonList = (column: Parameters<typeof eq>[0], name: string) => sql`${column} IN (SELECT value FROM json_each(${p(name)}))`;

export function preparePollStatements(db: Db) {
  return {
    metaValue: db
      .select({ value: t.meta.value })
      .from(t.meta)
      .where(eq(t.meta.key, p('key')))
      .prepare(),

    leaseHolder: db
      .select({ holder: t.leases.holder })
      .from(t.leases)
      .where(eq(t.leases.name, p('name')))
      .prepare(),
    takeOverLease: db
      .update(t.leases)
      .set({ holder: v('holder'), expiresMs: v('expiresMs') })
      .where(and(eq(t.leases.name, p('name')), eq(t.leases.holder, p('previous'))))
      .prepare(),

    revisions: db.select({ id: t.incidents.id, revision: t.incidents.revision }).from(t.incidents).where(inJsonList(t.incidents.id, 'ids')).prepare(),
    incidentsByIds: db.select().from(t.incidents).where(inJsonList(t.incidents.id, 'ids')).prepare(),
    notesByIncidentIds: db
      .select()
      .from(t.notes)
      .where(inJsonList(t.notes.incidentId, 'ids'))
      .orderBy(asc(t.notes.incidentId), asc(t.notes.createdMs), asc(t.notes.seq))
      .prepare(),
  };
}

export type PollStatements = ReturnType<typeof preparePollStatements>;
