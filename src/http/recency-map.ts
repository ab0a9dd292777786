/**
 * A Map that also keeps its entries in order of use, each operation in constant time: what a
 * bounded cache needs to find its least recently used entry on every request.
 *
 * A plain Map re-set on each use works until it is full of churn: every delete leaves a hole
 * that a walk from the oldest end skips one by one, about 30 us per walk at 10,000 entries.
 */
type Node<V> = { key: string; value: V; older: Node<V> | null; newer: Node<V> | null };

export type RecencyMap<V> = {
  size(): number;
  /** The value, without counting as a use. */
  get(key: string): V | undefined;
  /** Makes the key the most recently used; no-op for an absent key. */
  touch(key: string): void;
  /** Adds or replaces the value, as the most recently used. */
  set(key: string, value: V): void;
  delete(key: string): V | undefined;
  /** The least recently used entry. */
  oldest(): { key: string; value: V } | undefined;
};

export function createRecencyMap<V>(): RecencyMap<V> {
  const nodes = new Map<string, Node<V>>();
  let oldest: Node<V> | null = null;
  let newest: Node<V> | null = null;

  const unlink = (node: Node<V>) => {
    if (node.older) node.older.newer = node.newer;
    else oldest = node.newer;
    if (node.newer) node.newer.older = node.older;
    else newest = node.older;
    node.older = node.newer = null;
  };
  const append = (node: Node<V>) => {
    node.older = newest;
    if (newest) newest.newer = node;
    else oldest = node;
    newest = node;
  };

  return {
    size: () => nodes.size,
    get: (key) => nodes.get(key)?.value,
    touch(key) {
      const node = nodes.get(key);
      if (!node || node === newest) return;
      unlink(node);
      append(node);
    },
    set(key, value) {
      const node = nodes.get(key);
      if (node) {
        node.value = value;
        if (node !== newest) {
          unlink(node);
          append(node);
        }
        return;
      }
      const created: Node<V> = { key, value, older: null, newer: null };
      nodes.set(key, created);
      append(created);
    },
    delete(key) {
      const node = nodes.get(key);
      if (!node) return undefined;
      nodes.delete(key);
      unlink(node);
      return node.value;
    },
    oldest: () => (oldest ? { key: oldest.key, value: oldest.value } : undefined),
  };
}
