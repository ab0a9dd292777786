/**
 * What a demo catcher keeps of what arrived: the newest items within a count and a byte budget,
 * the oldest dropped first. Anyone who can reach a catcher decides what arrives, so both bounds
 * hold whatever is sent: many small items or a few large ones.
 */
export type KeptListLimits = {
  /** Items kept at most. */
  maxItems: number;
  /** The sum of the items' sizes kept at most; an item larger than this alone is not kept. */
  maxBytes: number;
};

export type KeptList<T> = {
  /** Keeps `item` (of `bytes`), dropping the oldest to make room; false when it is larger than the whole budget. */
  add(item: T, bytes: number): boolean;
  /** Oldest first. */
  items(): readonly T[];
  /** The sum of the kept items' sizes. */
  bytes(): number;
  readonly limits: KeptListLimits;
};

export function keptList<T>(limits: KeptListLimits): KeptList<T> {
  const kept: { item: T; bytes: number }[] = [];
  let totalBytes = 0;
  return {
    limits,
    add(item, bytes) {
      if (bytes > limits.maxBytes) return false;
      kept.push({ item, bytes });
      totalBytes += bytes;
      while (kept.length > limits.maxItems || totalBytes > limits.maxBytes) totalBytes -= kept.shift()!.bytes;
      return true;
    },
    items: () => kept.map((k) => k.item),
    bytes: () => totalBytes,
  };
}
