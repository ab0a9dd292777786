import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { betterSqlite3Connection, PREPARED_STATEMENTS_MAX } from '../../src/adapters/better-sqlite3-connection.ts';
import { createSqliteStore } from '../../src/adapters/sqlite-store.ts';
import type { IncidentFilter, Store } from '../../src/core/ports.ts';
import { applyPollOf } from '../contracts/archive-polls.ts';
import { rawIncident } from '../fixtures/vendor-builders.ts';
import { openTempArchive, type TempArchive } from '../helpers/temp-archive.ts';

const T0 = Date.UTC(2026, 9, 1, 12, 0, 0);

/** Every shape a list's filters can give its statement: each filter absent, one value, or several. */
function everyFilterShape(): IncidentFilter[] {
  const lists = [undefined, ['a'], ['a', 'b']];
  const shapes: IncidentFilter[] = [];
  for (const types of lists)
    for (const statuses of lists)
      for (const services of lists)
        for (const source of [undefined, 'main', 'src_a'])
          for (const sinceMs of [undefined, T0 - 1])
            for (const untilMs of [undefined, T0 + 1])
              shapes.push({ types, statuses, services: services?.map((s) => s.toUpperCase()), source, sinceMs, untilMs });
  return shapes;
}

describe('better-sqlite3 connection: prepared statements', () => {
  let archive: TempArchive;
  let client: Database.Database;
  let connection: ReturnType<typeof betterSqlite3Connection>;
  let store: Store;
  beforeEach(async () => {
    archive = openTempArchive();
    await applyPollOf(archive.store, [rawIncident({ id: 1, type: 'incident', status: 'resolved' })], T0);
    client = new Database(archive.path);
    connection = betterSqlite3Connection(client);
    store = createSqliteStore(connection);
  });
  afterEach(() => {
    client.close();
    archive.remove();
  });

  it('keeps at most its bound prepared when lists are asked in every shape their filters allow, and still answers each', async () => {
    const shapes = everyFilterShape();
    expect(shapes.length).toBeGreaterThan(2 * PREPARED_STATEMENTS_MAX);
    for (const filter of shapes) {
      for (const after of [null, { sortKey: Number.MAX_SAFE_INTEGER }]) await store.listIncidents(filter, after, 10);
      expect(connection.preparedStatements()).toBeLessThanOrEqual(PREPARED_STATEMENTS_MAX);
    }
    // A statement that left the map is prepared again when asked.
    expect((await store.listIncidents({}, null, 10)).map((i) => i.id)).toEqual(['1']);
    expect((await store.listIncidents({ types: ['incident'], statuses: ['resolved'] }, null, 10)).map((i) => i.id)).toEqual(['1']);
  });
});
