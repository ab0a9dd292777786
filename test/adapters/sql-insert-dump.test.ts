/** The INSERT dump D1 imports, run into a real SQLite database: every value must come back as it was. */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  D1_MAX_ROW_BYTES,
  insertStatements,
  RowTooLargeError,
  sqlLiteral,
  utf8Bytes,
  type DumpTable,
  type DumpValue,
} from '../../src/adapters/sql-insert-dump.ts';

const TABLE: DumpTable = { name: 'things', columns: ['id', 'a', 'b', 'n'], keyColumns: ['id'] };

function roundTrip(rows: DumpValue[][], maxStatementBytes?: number) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE things (id INTEGER PRIMARY KEY, a, b, n)');
  const statements = [...insertStatements(TABLE, rows, maxStatementBytes)];
  for (const statement of statements) db.exec(statement);
  const back = db.prepare('SELECT id, a, b, n FROM things ORDER BY id').safeIntegers(true).raw(true).all() as DumpValue[][];
  const types = db.prepare('SELECT typeof(a), typeof(b), typeof(n) FROM things ORDER BY id').raw(true).all();
  db.close();
  return { statements, back: back.map((row) => row.map((v) => (Buffer.isBuffer(v) ? new Uint8Array(v) : v))), types };
}

describe('insertStatements', () => {
  it('keeps every kind of value: quotes, NUL, unicode, integers past 2^53, reals, blobs, NULL', () => {
    const rows: DumpValue[][] = [
      [1n, "it's ''quoted''", 'a\0b\0', 9_223_372_036_854_775_807n],
      [2n, 'naïve 修正 🎉\r\n-- no comment; /* none */', null, -9_223_372_036_854_775_808n],
      [3n, 2.0, 0.1, Number.POSITIVE_INFINITY],
      [4n, new Uint8Array([0, 1, 254, 255]), 'BEGIN TRANSACTION; COMMIT;', -1.5e-300],
    ];
    const { back, types } = roundTrip(rows);
    expect(back).toEqual(rows);
    expect(types).toEqual([
      ['text', 'text', 'integer'],
      ['text', 'null', 'integer'],
      ['real', 'real', 'real'],
      ['blob', 'text', 'real'],
    ]);
  });

  it('never writes "BEGIN TRANSACTION" as such: wrangler cuts a file at those words', () => {
    expect(sqlLiteral('x BEGIN TRANSACTION y')).not.toContain('BEGIN TRANSACTION');
  });

  it('keeps each statement within the limit, packing short rows and appending long text in pieces', () => {
    const long = `${"ab🎉'é".repeat(500)}\0${'z'.repeat(700)}`;
    const rows: DumpValue[][] = [
      [1n, 'short', null, 1n],
      [2n, long, long.slice(4), 2n],
      [3n, 'x', 'y', 3n],
      [4n, 'x', 'y', 4n],
    ];
    const { statements, back } = roundTrip(rows, 400);
    expect(back).toEqual(rows);
    for (const statement of statements) expect(utf8Bytes(statement)).toBeLessThanOrEqual(400);
    expect(statements.filter((s) => s.startsWith('UPDATE')).length).toBeGreaterThan(10);
    // Rows 3 and 4 share one INSERT.
    expect(statements.filter((s) => s.startsWith('INSERT')).length).toBe(3);
  });

  it('refuses a row D1 could not hold, naming it', () => {
    const huge = 'x'.repeat(D1_MAX_ROW_BYTES + 1);
    expect(() => [...insertStatements(TABLE, [[7n, huge, null, null]])]).toThrow(RowTooLargeError);
    expect(() => [...insertStatements(TABLE, [[7n, huge, null, null]])]).toThrow(/things \(id 7\)/);
  });
});
