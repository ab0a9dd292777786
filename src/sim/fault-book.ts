/**
 * The registry of injected failures every simulator keeps (the feed, the Web API, the SCIM
 * directory): faults a test stacks in order, each consumed a call at a time, at most `max` at once.
 */

/** What every registered fault has: an id, and how many more calls it affects (null: until cleared). */
export type RegisteredFault = { id: number; times: number | null };

export type FaultBook<F extends RegisteredFault> = {
  /** The fault as registered, with its id; null when `max` are registered (a runaway script). */
  add(fields: Omit<F, 'id'>): F | null;
  /** The first registered fault that `applies`, consuming one of its `times`; a copy. */
  take(applies: (fault: F) => boolean): F | null;
  list(): F[];
  clear(): void;
};

export function createFaultBook<F extends RegisteredFault>(max: number): FaultBook<F> {
  let faults: F[] = [];
  let nextId = 1;
  return {
    add(fields) {
      if (faults.length >= max) return null;
      const fault = { ...fields, id: nextId++ } as F;
      faults.push(fault);
      return { ...fault };
    },
    take(applies) {
      // First registered wins, so a test can stack "twice a 503, then slow" in order.
      const fault = faults.find(applies);
      if (!fault) return null;
      if (fault.times !== null) {
        fault.times -= 1;
        if (fault.times <= 0) faults = faults.filter((f) => f !== fault);
      }
      return { ...fault };
    },
    list: () => faults.map((f) => ({ ...f })),
    clear() {
      faults = [];
    },
  };
}
