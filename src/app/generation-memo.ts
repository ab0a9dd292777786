/**
 * A value derived from the archive, built once per change of it: kept while the archive
 * generation is the same and the value is younger than `maxAgeMs` (values that also move with the
 * clock, such as windows ending now). For the expensive part that several answers share, or that
 * outlives them: the track record behind both `/api/reliability` and `/reliability`, the bars of
 * `/`, whose page is rebuilt after every poll run while the bars change only with the archive.
 */
import type { Clock } from '../core/ports.ts';

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
