/** The log of feed requests the sim received, so tests can check conditional requests and fallbacks. */

export type RequestLogEntry = {
  atMs: number;
  method: string;
  /** Path and query as requested. */
  path: string;
  /** The status answered; null while held open, and for a timeout that never answered. */
  status: number | null;
  ifNoneMatch: boolean;
  ifModifiedSince: boolean;
  /** The fault that shaped the answer, if any. */
  fault: string | null;
};

export type RequestLog = {
  record(entry: Omit<RequestLogEntry, 'status' | 'fault'>): RequestLogEntry;
  list(): RequestLogEntry[];
  clear(): void;
};

// Long demos poll for hours; keep the newest entries only.
const MAX_ENTRIES = 5000;

export function createRequestLog(): RequestLog {
  let entries: RequestLogEntry[] = [];
  return {
    record(fields) {
      const entry: RequestLogEntry = { ...fields, status: null, fault: null };
      entries.push(entry);
      if (entries.length > MAX_ENTRIES) entries = entries.slice(-MAX_ENTRIES);
      return entry;
    },
    list: () => entries.map((e) => ({ ...e })),
    clear() {
      entries = [];
    },
  };
}
