/**
 * The one rule for a list read from outside (the Web API's cursor pages, the SCIM directory's
 * list pages, a group's members): a record that is not the shape its schema gives is left out
 * with its reason, and the rest of the page is used. The page's envelope (a list at all, its
 * cursor or totals) is the reader's to refuse as a whole.
 */
import { z } from 'zod';
import type { Logger } from './ports/runtime.ts';
import { isWellFormed, wellFormedPrefix } from './well-formed-text.ts';

/** A record left out of an outside list, and why. `id`: the record's own id, when one we could show. */
export type RecordSkip = { id: string | null; reason: string };

/** A skip's reason as a log or the audit list keeps it. */
const MAX_SKIP_REASON_CHARS = 300;
/** Longest id a skip names: past this the id itself is what is wrong, and it is not repeated. */
const MAX_SKIP_ID_CHARS = 100;

/** The first problem zod found, as `path: message`, within MAX_SKIP_REASON_CHARS: a skip's reason, or a refused envelope's. */
export function firstIssue(error: z.ZodError, whole = '(record)'): string {
  const issue = error.issues[0];
  // A path or message can quote the outsider's own keys: cut as all outside text is.
  return wellFormedPrefix(issue ? `${issue.path.join('.') || whole}: ${issue.message}` : 'not the shape the spec gives', MAX_SKIP_REASON_CHARS);
}

/** The id at `key` of a record, when it is one we could show (a well-formed string of at most 100 characters). */
function skippedId(raw: unknown, key: string): string | null {
  const id = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_SKIP_ID_CHARS && isWellFormed(id) ? id : null;
}

export type RecordRead<T> = { kind: 'record'; record: T } | { kind: 'skipped'; skip: RecordSkip };

/** One record of an outside list: the record as `schema` reads it, or the reason it is skipped. */
export function readRecord<S extends z.ZodType>(schema: S, raw: unknown, idKey: string): RecordRead<z.output<S>> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { kind: 'record', record: parsed.data };
  return { kind: 'skipped', skip: { id: skippedId(raw, idKey), reason: firstIssue(parsed.error) } };
}

/** A page's records as `schema` reads each on its own: those it reads, and the rest skipped with their reasons. */
export function readRecords<S extends z.ZodType>(schema: S, raws: readonly unknown[], idKey: string): { records: z.output<S>[]; skipped: RecordSkip[] } {
  const records: z.output<S>[] = [];
  const skipped: RecordSkip[] = [];
  for (const raw of raws) {
    const read = readRecord(schema, raw, idKey);
    if (read.kind === 'record') records.push(read.record);
    else skipped.push(read.skip);
  }
  return { records, skipped };
}

/** Skips a report names at most; it counts all of them beside those. */
const MAX_SKIPS_NAMED = 10;

/** A read's skips as a log line or a refusal reports them: how many in all, and the first MAX_SKIPS_NAMED. */
export type SkipTally = { skipped: number; records: RecordSkip[] };

export function createSkipTally(): SkipTally & { add(skips: readonly RecordSkip[]): void } {
  const tally = {
    skipped: 0,
    records: [] as RecordSkip[],
    add(skips: readonly RecordSkip[]) {
      tally.skipped += skips.length;
      tally.records.push(...skips.slice(0, MAX_SKIPS_NAMED - tally.records.length));
    },
  };
  return tally;
}

/** Says in the log what a read of `list` skipped (how many, and the first named with their reasons), when it skipped any. */
export function logSkips(logger: Logger, list: string, tally: SkipTally): void {
  if (tally.skipped > 0) logger.warn('skipped malformed records', { list, skipped: tally.skipped, records: tally.records });
}
