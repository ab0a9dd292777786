import type { D1DatabaseLike } from '../../../src/adapters/d1-connection.ts';

/** The real D1, counting every call that reaches it: one invocation's share of its subrequest budget. */
export function countingD1(db: D1DatabaseLike): { db: D1DatabaseLike; calls: () => number } {
  let calls = 0;
  const counted = new Set(['all', 'raw', 'run', 'first']);
  const statement = (s: object): object =>
    new Proxy(s, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (key === 'bind') return (...args: unknown[]) => statement((value as (...a: unknown[]) => object).apply(target, args));
        if (typeof key === 'string' && counted.has(key)) calls++;
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  const wrapped = new Proxy(db as object, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'prepare') return (sql: string) => statement((value as (q: string) => object).call(target, sql));
      if (key === 'batch') {
        return (list: unknown[]) => {
          calls++;
          return (value as (l: unknown[]) => unknown).call(target, list);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  }) as D1DatabaseLike;
  return { db: wrapped, calls: () => calls };
}
