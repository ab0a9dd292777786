/**
 * The keys of the archive's `meta` rows. A module of their own: the poll's writes, the archive's
 * reads, the reliability reads and a source's purge all name them, and the purge's statements
 * are built from them when their module loads, before a module that imports it back would be.
 */

/** When the archive was seeded: its first poll that read the vendor's history. */
export const SEEDED_KEY = 'seeded_at';
/** Moves with every write to the archive: what the caches follow. */
export const GENERATION_KEY = 'generation';
/**
 * The main feed's own generation: moved only by writes to its incidents, so a source's poll,
 * which moves the archive generation, never costs the main poll its "nothing changed" short-cut.
 */
export const MAIN_GENERATION_KEY = 'main_generation';
/** The digests of the bodies the last full diff read, with the main feed's generation it left. */
export const DIFFED_FEED_KEY = 'diffed_feed';
