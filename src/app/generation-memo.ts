/**
 * A value derived from the archive, built once per change of it: kept while the archive
 * generation is the same and the value is younger than `maxAgeMs` (values that also move with the
 * clock, such as windows ending now). For the expensive part that several answers share, or that
 * outlives them: the track record behind both `/api/reliability` and `/reliability`, the bars of
 * `/`, whose page is rebuilt after every poll run while the bars change only with the archive.
 */
import type { ArchiveWrites, Clock } from '../core/ports.ts';

export type GenerationMemoOptions<T> = {
  generation: () => Promise<number>;
  clock: Clock;
  maxAgeMs: number;
  build: (nowMs: number) => Promise<T>;
};

export function generationMemo<T>(options: GenerationMemoOptions<T>): () => Promise<T> {
  let built: { generation: number; atMs: number; value: Promise<T> } | null = null;
  return async () => {
    const nowMs = options.clock.now();
    const generation = await options.generation();
    const age = built ? nowMs - built.atMs : Infinity;
    // A clock that went back counts as expired, as in the response cache.
    if (built && built.generation === generation && age >= 0 && age < options.maxAgeMs) return built.value;
    // The promise is kept, so requests arriving during a build wait for it instead of building again.
    const value = options.build(nowMs);
    built = { generation, atMs: nowMs, value };
    value.catch(() => {
      if (built?.value === value) built = null;
    });
    return value;
  };
}

/**
 * A generationMemo per store, shared by every route and tool that asks with the same store (a
 * WeakMap: a store that goes away takes its memo along). The first asker's clock is the memo's.
 */
export function perStoreMemo<S extends Pick<ArchiveWrites, 'archiveGeneration'>, T>(
  maxAgeMs: number,
  build: (store: S, nowMs: number) => Promise<T>,
): (store: S, clock: Clock) => () => Promise<T> {
  const memos = new WeakMap<S, () => Promise<T>>();
  return (store, clock) => {
    let memo = memos.get(store);
    if (!memo) {
      memo = generationMemo({ generation: () => store.archiveGeneration(), clock, maxAgeMs, build: (nowMs) => build(store, nowMs) });
      memos.set(store, memo);
    }
    return memo;
  };
}
