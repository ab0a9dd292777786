/**
 * "Did you mean": the names closest to one that was not found, by edit distance, for a refusal
 * that lists what exists instead of leaving the reader to guess.
 */

/** Names longer than this are compared by their start: the distance costs length × length. */
const COMPARED_MAX_CHARS = 100;

/** Levenshtein distance of two strings, case and surrounding spaces ignored. */
export function editDistance(a: string, b: string): number {
  const x = a.trim().toLowerCase().slice(0, COMPARED_MAX_CHARS);
  const y = b.trim().toLowerCase().slice(0, COMPARED_MAX_CHARS);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/**
 * The names close enough to `wanted` to be what was meant (at most a third of its letters off,
 * and at least two), closest first, at most `limit`.
 */
export function closeNames(wanted: string, names: readonly string[], limit: number): string[] {
  const allowed = Math.max(2, Math.floor(wanted.trim().length / 3));
  return names
    .map((name) => ({ name, distance: editDistance(wanted, name) }))
    .filter((n) => n.distance <= allowed)
    .sort((p, q) => p.distance - q.distance || p.name.localeCompare(q.name))
    .slice(0, limit)
    .map((n) => n.name);
}
