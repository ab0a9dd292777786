/**
 * What a storage error means to an operator (disk full, database busy...), read from SQLite's
 * result codes and, for D1, which has no codes, from SQLite's fixed messages.
 */

export type StoreFailure = {
  /** Short and stable: it names the episode in the log ("delivery paused: disk full"). */
  reason: string;
  /** False for anything else: most likely a bug, whose stack is worth logging once. */
  known: boolean;
  message: string;
};

const KINDS: readonly { reason: string; codePrefixes: readonly string[]; message: RegExp }[] = [
  { reason: 'disk full', codePrefixes: ['SQLITE_FULL'], message: /database or disk is full|SQLITE_FULL/i },
  {
    reason: 'database busy',
    codePrefixes: ['SQLITE_BUSY', 'SQLITE_LOCKED'],
    message: /database is locked|database table is locked|SQLITE_BUSY|SQLITE_LOCKED/i,
  },
  { reason: 'storage I/O error', codePrefixes: ['SQLITE_IOERR'], message: /disk I\/O error|SQLITE_IOERR/i },
  { reason: 'database read-only', codePrefixes: ['SQLITE_READONLY'], message: /readonly database|SQLITE_READONLY/i },
  { reason: 'database cannot be opened', codePrefixes: ['SQLITE_CANTOPEN'], message: /unable to open database|SQLITE_CANTOPEN/i },
  { reason: 'database corrupt', codePrefixes: ['SQLITE_CORRUPT', 'SQLITE_NOTADB'], message: /disk image is malformed|SQLITE_CORRUPT/i },
];

export function describeStoreFailure(error: unknown): StoreFailure {
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';
  const kind = KINDS.find((k) => (code !== '' && k.codePrefixes.some((p) => code.startsWith(p))) || k.message.test(message));
  return kind ? { reason: kind.reason, known: true, message } : { reason: 'unexpected error', known: false, message };
}
