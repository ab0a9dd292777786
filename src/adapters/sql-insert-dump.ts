/**
 * Rows of an SQLite table as INSERT statements that D1 accepts from a file (`wrangler d1 execute
 * --file`): plain SQL literals, no transaction, and no statement longer than D1's limit. Pure: the
 * caller reads the rows and writes the text (src/entry/export-d1.ts).
 */

/** A value as SQLite stores it; integers come as bigint so none past 2^53 loses a digit. */
export type DumpValue = null | bigint | number | string | Uint8Array;

/**
 * D1's "maximum SQL statement length", 100,000 bytes (developers.cloudflare.com/d1/platform/limits/;
 * every copy of that page read, up to April 2026). Every statement written, its `;` and newline
 * included, stays within it.
 */
export const D1_MAX_STATEMENT_BYTES = 100_000;

/** D1's "maximum string, BLOB or table row size", 1,000,000 bytes (same page, same copies): a row beyond it cannot be stored. */
export const D1_MAX_ROW_BYTES = 1_000_000;

/** Rows one INSERT carries at most: fewer statements, each well within SQLite's own limits. */
const MAX_ROWS_PER_INSERT = 500;

export type DumpTable = {
  name: string;
  /** Columns in the order each row lists its values; `rowid` for a virtual table's key. */
  columns: readonly string[];
  /** Columns that identify a row, for appending the rest of a long value to it. */
  keyColumns: readonly string[];
};

export class RowTooLargeError extends Error {
  override readonly name = 'RowTooLargeError';
  constructor(
    readonly table: string,
    readonly key: string,
    readonly bytes: number,
  ) {
    super(`a row of ${table} (${key}) holds ${bytes} bytes, more than D1's ${D1_MAX_ROW_BYTES} per row`);
  }
}

export const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * One value as an SQL literal. Text is quoted with `'` doubled; a NUL, which would end the
 * statement in some readers, is spliced in with char(0); "BEGIN TRANSACTION" inside text is split,
 * because wrangler looks for those words anywhere in a file and cuts the first "COMMIT;" it finds.
 */
export function sqlLiteral(value: DumpValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return realLiteral(value);
  if (value instanceof Uint8Array) return `X'${hex(value)}'`;
  return textLiteral(value);
}

function realLiteral(value: number): string {
  if (Number.isNaN(value)) return 'NULL'; // SQLite stores NaN as NULL already
  if (!Number.isFinite(value)) return value > 0 ? '9e999' : '-9e999';
  // An integral REAL keeps its type: "2.0", not "2" (which SQLite would read as an INTEGER).
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

function textLiteral(text: string): string {
  const parts = text.split('\0').map((part) => `'${part.replaceAll("'", "''").replaceAll('BEGIN TRANSACTION', "BEGIN' || ' TRANSACTION")}'`);
  return parts.join(' || char(0) || ');
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** UTF-8 length of a string without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** How many bytes SQLite counts for a value's size (text as UTF-8). */
function storedBytes(value: DumpValue): number {
  if (value === null) return 0;
  if (typeof value === 'string') return utf8Bytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/**
 * The statements that recreate `rows` in `table`, each at most `maxStatementBytes` long (with
 * its `;\n`). Rows are packed into multi-row INSERTs; a row too long for one statement is
 * inserted with its longest text values empty, then those are appended in pieces by UPDATEs
 * that find the row by its key columns.
 */
export function* insertStatements(table: DumpTable, rows: Iterable<readonly DumpValue[]>, maxStatementBytes = D1_MAX_STATEMENT_BYTES): Generator<string> {
  const head = `INSERT INTO ${quoteName(table.name)} (${table.columns.map(quoteName).join(', ')}) VALUES\n`;
  const headBytes = utf8Bytes(head);
  let pending: string[] = [];
  let pendingBytes = headBytes;
  const flush = function* () {
    if (pending.length > 0) yield `${head}${pending.join(',\n')};\n`;
    pending = [];
    pendingBytes = headBytes;
  };
  for (const row of rows) {
    const rowBytes = row.reduce((sum: number, value) => sum + storedBytes(value), 0);
    if (rowBytes > D1_MAX_ROW_BYTES) throw new RowTooLargeError(table.name, describeKey(table, row), rowBytes);
    const tuple = `(${row.map(sqlLiteral).join(', ')})`;
    const tupleBytes = utf8Bytes(tuple);
    // ",\n" between tuples, ";\n" after the last: two bytes each.
    if (headBytes + tupleBytes + 2 > maxStatementBytes) {
      yield* flush();
      yield* oversizeRow(table, row, head, maxStatementBytes);
      continue;
    }
    if (pendingBytes + tupleBytes + 2 > maxStatementBytes || pending.length >= MAX_ROWS_PER_INSERT) yield* flush();
    pending.push(tuple);
    pendingBytes += tupleBytes + 2;
  }
  yield* flush();
}

function* oversizeRow(table: DumpTable, row: readonly DumpValue[], head: string, maxStatementBytes: number): Generator<string> {
  const literals = row.map(sqlLiteral);
  const deferred = new Set<number>();
  // Longest text first, until the INSERT with those left empty fits.
  const byLength = row
    .map((value, index) => ({ value, index, bytes: utf8Bytes(literals[index]!) }))
    .filter(({ value }) => typeof value === 'string')
    .sort((a, b) => b.bytes - a.bytes);
  const insertBytes = () => utf8Bytes(head) + utf8Bytes(`(${literals.join(', ')});\n`);
  for (const { index } of byLength) {
    if (insertBytes() <= maxStatementBytes) break;
    deferred.add(index);
    literals[index] = "''";
  }
  if (insertBytes() > maxStatementBytes) throw new RowTooLargeError(table.name, describeKey(table, row), insertBytes());
  yield `${head}(${literals.join(', ')});\n`;

  const where = table.keyColumns.map((column) => `${quoteName(column)} = ${sqlLiteral(row[table.columns.indexOf(column)] ?? null)}`).join(' AND ');
  for (const index of deferred) {
    const column = quoteName(table.columns[index]!);
    const prefix = `UPDATE ${quoteName(table.name)} SET ${column} = ${column} || `;
    const suffix = ` WHERE ${where};\n`;
    const room = maxStatementBytes - utf8Bytes(prefix) - utf8Bytes(suffix);
    for (const piece of textPieces(row[index] as string, room)) yield `${prefix}${piece}${suffix}`;
  }
}

/**
 * Splits text into literals of at most `maxLiteralBytes` each, never inside a character. A step
 * is small enough to always fit (a UTF-16 unit costs at most 6 bytes quoted, and a NUL spliced
 * with char(0) 17), and a piece grows by steps while its literal still fits.
 */
function* textPieces(text: string, maxLiteralBytes: number): Generator<string> {
  const step = Math.max(1, Math.floor((maxLiteralBytes - 40) / 20));
  let start = 0;
  while (start < text.length) {
    let end = wholeEnd(text, Math.min(text.length, start + step));
    while (end < text.length) {
      const next = wholeEnd(text, Math.min(text.length, end + step));
      if (utf8Bytes(textLiteral(text.slice(start, next))) > maxLiteralBytes) break;
      end = next;
    }
    yield textLiteral(text.slice(start, end));
    start = end;
  }
}

/** `end` moved past the low half of a surrogate pair it would split. */
function wholeEnd(text: string, end: number): number {
  const before = text.charCodeAt(end - 1);
  return end < text.length && before >= 0xd800 && before <= 0xdbff ? end + 1 : end;
}

function describeKey(table: DumpTable, row: readonly DumpValue[]): string {
  return table.keyColumns.map((column) => `${column} ${String(row[table.columns.indexOf(column)])}`).join(', ');
}
