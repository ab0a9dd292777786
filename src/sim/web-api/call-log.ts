/** The Web API calls the sim answered, newest last, so a test can see what a client sent and what it got. */

export type CallLogEntry = {
  atMs: number;
  method: string;
  /** HTTP status answered; null while held open, and for a timeout that never answered. */
  status: number | null;
  /** The `error` of an `{ok: false}` answer. */
  error: string | null;
  teamId: string | null;
  fault: string | null;
};

/** Long demos call for hours; only the newest entries are kept. */
export const CALL_LOG_MAX = 5000;

export type CallLog = {
  record(entry: Pick<CallLogEntry, 'atMs' | 'method'>): CallLogEntry;
  list(): CallLogEntry[];
  clear(): void;
};

export function createCallLog(): CallLog {
  let entries: CallLogEntry[] = [];
  return {
    record(fields) {
      const entry: CallLogEntry = { ...fields, status: null, error: null, teamId: null, fault: null };
      entries.push(entry);
      if (entries.length > CALL_LOG_MAX) entries = entries.slice(-CALL_LOG_MAX);
      return entry;
    },
    list: () => entries.map((e) => ({ ...e })),
    clear() {
      entries = [];
    },
  };
}
