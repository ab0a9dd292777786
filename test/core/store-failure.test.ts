/** The errors are made by a real SQLite (better-sqlite3) where it can make them, so the codes are SQLite's own. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeStoreFailure } from '../../src/core/store-failure.ts';
import { tempDir } from '../helpers/temp-archive.ts';

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('describeStoreFailure', () => {
  it('names a full disk, from SQLite when max_page_count is reached', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x BLOB)');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const error = thrownBy(() => db.prepare('INSERT INTO t VALUES (randomblob(100000))').run());
    expect(describeStoreFailure(error)).toMatchObject({ reason: 'disk full', known: true });
  });

  it('names a database another connection holds locked', () => {
    const path = join(tempDir(), 'busy.db');
    const holder = new Database(path);
    holder.exec('CREATE TABLE t (x)');
    holder.exec('BEGIN EXCLUSIVE');
    const other = new Database(path, { timeout: 0 });
    const error = thrownBy(() => other.prepare('INSERT INTO t VALUES (1)').run());
    holder.exec('ROLLBACK');
    expect(describeStoreFailure(error)).toMatchObject({ reason: 'database busy', known: true });
  });

  it('reads D1, which has no codes, by its message', () => {
    expect(describeStoreFailure(new Error('D1_ERROR: database or disk is full: SQLITE_FULL')).reason).toBe('disk full');
    expect(describeStoreFailure(new Error('D1_ERROR: disk I/O error')).reason).toBe('storage I/O error');
  });

  it('calls anything else unexpected, keeping its message', () => {
    expect(describeStoreFailure(new TypeError("Cannot read properties of undefined (reading 'id')"))).toEqual({
      reason: 'unexpected error',
      known: false,
      message: "Cannot read properties of undefined (reading 'id')",
    });
    expect(describeStoreFailure('a string')).toMatchObject({ known: false, message: 'a string' });
  });
});
