/**
 * `statuswatch export-d1`: the data of a Node archive as an SQL file for
 * `wrangler d1 execute DB --remote --file`, to move the archive into the Workers form's D1.
 * The schema is not in it: D1 gets that from `wrangler d1 migrations apply`, the same drizzle/.
 */
import type Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { settingError } from '../config.ts';
import { insertStatements, RowTooLargeError, quoteName, type DumpTable, type DumpValue } from '../adapters/sql-insert-dump.ts';
import { MIGRATIONS_DIR, openSqliteArchive } from './open-sqlite.ts';

/**
 * The order tables are written in: what a row refers to comes before it (the schema declares no
 * foreign keys, so this is for a reader of the file). Tables not named here (a newer migration's)
 * follow in name order, so none is left behind.
 */
const TABLE_ORDER = [
  'meta',
  'incidents',
  'incident_services',
  'notes',
  'incident_versions',
  'incidents_fts',
  'poll_runs',
  'poll_run_rejections',
  'rejected_bodies',
  'rejected_body_texts',
  'events',
  'subscriptions',
  'link_tokens',
  'deliveries',
  'delivery_attempts',
  'rate_limits',
  'admin_sessions',
];

/**
 * Not moved: SQLite's and the migrators' bookkeeping (D1 keeps its own), FTS5's shadow tables
 * (rebuilt from the incidents_fts rows), and leases, which name a process of the old host.
 */
const LEFT_OUT = /^(sqlite_|__drizzle_migrations$|d1_migrations$|_cf_|incidents_fts_|leases$)/;

export type ExportSummary = { tables: { name: string; rows: number }[]; statements: number; bytes: number };

export function exportArchiveForD1(databasePath: string, outPath: string): ExportSummary {
  if (databasePath === ':memory:' || !existsSync(databasePath)) {
    throw settingError(
      'DATABASE_PATH',
      databasePath,
      'no archive there',
      'point DATABASE_PATH (or --database-path) at the Node archive to export, e.g. ./data/statuswatch.db',
    );
  }
  // Migrated first, so its tables have the columns D1's copy of drizzle/ gives them.
  const archive = openSqliteArchive(databasePath);
  let fd: number;
  try {
    fd = openSync(outPath, 'wx');
  } catch (error) {
    archive.close();
    const code = (error as { code?: string }).code;
    const problem = code === 'EEXIST' ? 'the file exists already' : `cannot be created (${code ?? String(error)})`;
    throw settingError('--out', outPath, problem, 'give --out a new file in a folder this user can write, e.g. --out archive.sql');
  }
  try {
    // One read transaction: a snapshot, even while a running serve keeps polling into the file.
    let bytes = 0;
    const write = (text: string) => {
      writeSync(fd, text);
      bytes += Buffer.byteLength(text);
    };
    write(
      `-- statuswatch archive data for D1 (statuswatch export-d1), schema at ${latestMigration()}.\n` +
        `-- Apply drizzle/ first (wrangler d1 migrations apply DB --remote), into a database with no archive rows yet.\n`,
    );
    const summary = { ...archive.sqlite.transaction(() => dumpStatements(archive.sqlite, write))(), bytes };
    closeSync(fd);
    return summary;
  } catch (error) {
    closeSync(fd);
    rmSync(outPath, { force: true }); // half a file would import half an archive
    if (error instanceof RowTooLargeError) {
      throw settingError(
        'DATABASE_PATH',
        databasePath,
        `${error.message}, so the file would fail to import`,
        error.table === 'rejected_body_texts'
          ? 'it is a refused feed body kept for inspection: let retention remove it (RETENTION_REJECTED_PAYLOADS_DAYS, REJECTED_PAYLOADS_MAX_BYTES) and export again'
          : 'report it: the Workers form cannot hold this archive as it is',
      );
    }
    throw error;
  } finally {
    archive.close();
  }
}

/**
 * Every row of the archive as statements, table by table, each handed to `onStatement`. The caller
 * runs it inside a read transaction for a consistent snapshot. Also loads the workerd benchmark's D1.
 */
export function dumpStatements(sqlite: Database.Database, onStatement: (statement: string) => void): Omit<ExportSummary, 'bytes'> {
  const summary: Omit<ExportSummary, 'bytes'> = { tables: [], statements: 0 };
  for (const table of dumpTables(sqlite)) {
    const select = sqlite.prepare(
      `SELECT ${table.columns.map(quoteName).join(', ')} FROM ${quoteName(table.name)} ORDER BY ${table.keyColumns.map(quoteName).join(', ')}`,
    );
    select.safeIntegers(true).raw(true);
    let rows = 0;
    const counted = (function* () {
      for (const row of select.iterate() as Iterable<DumpValue[]>) {
        rows++;
        yield row.map((value) => (Buffer.isBuffer(value) ? new Uint8Array(value) : value));
      }
    })();
    for (const statement of insertStatements(table, counted)) {
      onStatement(statement);
      summary.statements++;
    }
    summary.tables.push({ name: table.name, rows });
  }
  return summary;
}

function dumpTables(sqlite: Database.Database): DumpTable[] {
  const names = (sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[])
    .map(({ name }) => name)
    .filter((name) => !LEFT_OUT.test(name));
  const rank = (name: string) => (TABLE_ORDER.includes(name) ? TABLE_ORDER.indexOf(name) : TABLE_ORDER.length);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((name) => describeTable(sqlite, name));
}

function describeTable(sqlite: Database.Database, name: string): DumpTable {
  const info = sqlite.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as { name: string; pk: number }[];
  const keys = info
    .filter((column) => column.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((column) => column.name);
  const columns = info.map((column) => column.name);
  // A table with no declared key (the FTS table) is keyed by its rowid, written out with the row.
  return keys.length > 0 ? { name, columns, keyColumns: keys } : { name, columns: ['rowid', ...columns], keyColumns: ['rowid'] };
}

function latestMigration(): string {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort();
  return files.at(-1)?.replace(/\.sql$/, '') ?? 'no migration';
}
