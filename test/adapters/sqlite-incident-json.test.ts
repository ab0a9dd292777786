/**
 * The instants of an incident's JSON, written by SQLite (isoUtcSql), against toIsoUtc, which writes
 * the API's other instants (events, poll runs): the same text for every millisecond, on a real SQLite.
 */
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { afterAll, describe, expect, it } from 'vitest';
import { isoUtcSql } from '../../src/adapters/sqlite-incident-json.ts';
import { FIRST_FOUR_DIGIT_YEAR_MS, LAST_FOUR_DIGIT_YEAR_MS, toIsoUtc } from '../../src/core/vendor-time.ts';

const DAY_MS = 86_400_000;
/** Date's own range: ±100,000,000 days from 1970. */
const DATE_LIMIT_MS = 8.64e15;

describe('isoUtcSql', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());
  db.exec('CREATE TABLE instants (ms INTEGER)');
  const { sql: text } = new SQLiteSyncDialect().sqlToQuery(isoUtcSql(sql.raw('ms')));
  const formatted = (values: (number | null)[]): (string | null)[] => {
    db.exec('DELETE FROM instants');
    const insert = db.prepare('INSERT INTO instants (ms) VALUES (?)');
    db.transaction(() => {
      for (const ms of values) insert.run(ms);
    })();
    return db.prepare(`SELECT ${text} FROM instants ORDER BY rowid`).pluck().all() as (string | null)[];
  };

  it('writes every millisecond as toIsoUtc does: .999, before 1970, before year 0 and after 9999 included', () => {
    const edges = [0, -1, 1, 999, -999, -1000, 1_700_000_000_999, Date.UTC(2000, 0, 1) - 1, Date.UTC(2026, 1, 28, 23, 59, 59, 999)];
    // The ends of the four-digit years, and of Date's range, a few seconds either side.
    for (const end of [FIRST_FOUR_DIGIT_YEAR_MS, LAST_FOUR_DIGIT_YEAR_MS + 1, DATE_LIMIT_MS, -DATE_LIMIT_MS]) {
      for (let d = -2_500; d <= 2_500; d += 7) {
        const ms = end + d;
        if (Math.abs(ms) <= DATE_LIMIT_MS) edges.push(ms);
      }
    }
    // Every day's last millisecond over a leap-year cycle, and a spread over Date's whole range.
    for (let day = 0; day < 4 * 366; day++) edges.push(Date.UTC(2023, 0, 1) + (day + 1) * DAY_MS - 1);
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    for (let i = 0; i < 20_000; i++) edges.push(Math.round((random() * 2 - 1) * DATE_LIMIT_MS));
    for (let i = 0; i < 20_000; i++) edges.push(Math.round(Date.UTC(2000, 0, 1) + random() * 40 * 365 * DAY_MS));
    expect(formatted(edges)).toEqual(edges.map(toIsoUtc));
  });

  it('writes null for null', () => {
    expect(formatted([null, 0])).toEqual([null, '1970-01-01T00:00:00.000Z']);
  });
});
