/** Counts in words: "1 incident", "10 members", never "1 incidents" or "member(s)". */

/** `n` and the noun, plural unless `n` is 1; `many` for a noun that does not just take an "s". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
