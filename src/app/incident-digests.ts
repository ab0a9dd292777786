/**
 * Digests of incidents as a poll observed them, kept with the archive's DiffedFeed beside the
 * revision each diff left: an incident whose archived revision is still that one and whose digest
 * is the same would diff to nothing, so a poll loads and diffs only the incidents that changed.
 */
import { sha256Hex } from '../core/content-hash.ts';
import type { Incident } from '../core/incident.ts';
import type { Hashes, IncidentDigests, LastDiff } from '../core/ports.ts';

/**
 * Incidents whose digests a DiffedFeed keeps, at most. About 60 bytes each, so the meta row stays
 * far below D1's 1,000,000 bytes a row even for a feed at the body cap; a feed with more is diffed
 * whole every time it changes, as it was before digests.
 */
export const KEPT_DIGESTS_MAX = 5000;

/** Hex characters kept of the SHA-256: 128 bits, collision-free for any feed. */
const DIGEST_HEX_CHARS = 32;

export type IncidentDigester = {
  /** The digest of each incident, by id. */
  digestAll(incidents: readonly Incident[]): Promise<Map<string, string>>;
};

/**
 * Digests incidents by their content. The memoized feed parser hands back the same Incident
 * object for an entry that did not change, so each is hashed once while it stays the same.
 */
export function createIncidentDigester(hashes?: Hashes): IncidentDigester {
  // One map for the poller's life: an entry lives as long as its Incident object, which the parser
  // drops once the feed changes it, so it holds no more than the incidents still in memory.
  // Rebuilding it every poll cost a WeakMap insert per incident seen (about 10 µs for 120).
  const known = new WeakMap<Incident, string>();
  return {
    async digestAll(incidents) {
      const digests = new Map<string, string>();
      for (const incident of incidents) {
        let digest = known.get(incident);
        if (digest === undefined) {
          digest = (await sha256Hex(JSON.stringify(incident), hashes)).slice(0, DIGEST_HEX_CHARS);
          known.set(incident, digest);
        }
        digests.set(incident.id, digest);
      }
      return digests;
    },
  };
}

/** True when the kept digests say this incident, at this archived revision, is the one diffed last. */
export function isDiffedAlready(kept: IncidentDigests | undefined, id: string, revision: number | undefined, digest: string | undefined): boolean {
  if (!kept || revision === undefined || digest === undefined || !Object.hasOwn(kept, id)) return false;
  const entry = kept[id];
  return Array.isArray(entry) && entry[0] === revision && entry[1] === digest;
}

/**
 * What a poll whose diff left nothing pending keeps: every incident it observed, at the revision it
 * wrote or found archived. Undefined beyond KEPT_DIGESTS_MAX incidents.
 */
export function keptDigestsOf(digests: ReadonlyMap<string, string>, revisionOf: (id: string) => number | undefined): IncidentDigests | undefined {
  if (digests.size > KEPT_DIGESTS_MAX) return undefined;
  const kept: IncidentDigests = {};
  for (const [id, digest] of digests) {
    const revision = revisionOf(id);
    if (revision !== undefined) kept[id] = [revision, digest];
  }
  return kept;
}

/**
 * The archived revisions the last full diff kept, when they are still the archive's: no process
 * has written an incident since (the archive generation is the one that diff left, and every
 * incident write moves it). Then a poll reads the revisions only of incidents that diff did not
 * see; null when the kept ones cannot be trusted, and every revision must be read.
 */
export function keptRevisionsOf(lastDiff: LastDiff, ids: readonly string[]): { revisions: Map<string, number>; unknown: string[] } | null {
  const kept = lastDiff.diffed?.generation === lastDiff.generation ? lastDiff.diffed.incidents : undefined;
  if (!kept) return null;
  const revisions = new Map<string, number>();
  const unknown: string[] = [];
  for (const id of ids) {
    const entry = Object.hasOwn(kept, id) ? kept[id] : undefined;
    if (Array.isArray(entry) && Number.isSafeInteger(entry[0])) revisions.set(id, entry[0]);
    else unknown.push(id);
  }
  return { revisions, unknown };
}
