/** Removing what retention no longer keeps. */

/**
 * Deletes what retention no longer keeps (core/retention.ts has the rules). Each call removes at
 * most `limit` rows in one atomic step (a fixed list of statements: one transaction, or one D1
 * batch) and returns how many went; the caller repeats while a call comes back full.
 */
export interface RetentionStore {
  /** Poll runs started before `beforeMs` and their rejection records; never the newest run nor the newest ok/partial one. */
  prunePollRuns(beforeMs: number, limit: number): Promise<number>;
  /** Rejected bodies last seen before `beforeMs`, then the least recently seen beyond `maxBytes` in total (the newest stays). */
  pruneRejectedBodies(beforeMs: number, maxBytes: number, limit: number): Promise<number>;
  /** Pending (unconfirmed) subscriptions created before `createdBeforeMs` with no link valid at `now`. */
  prunePendingSignups(createdBeforeMs: number, now: number, limit: number): Promise<number>;
  /** Link tokens that expired before `expiredBeforeMs`. */
  pruneLinkTokens(expiredBeforeMs: number, limit: number): Promise<number>;
  /** Rate-limit logs whose window ended at or before `expiredByMs`. */
  pruneRateLimits(expiredByMs: number, limit: number): Promise<number>;
  /** The workspace app's conversation holds that ended at or before `expiredByMs`. */
  pruneAppConversationHolds(expiredByMs: number, limit: number): Promise<number>;
  /** Group deliveries' per-member sends recorded before `beforeMs`, oldest first. */
  pruneGroupMemberSends(beforeMs: number, limit: number): Promise<number>;
  /** Chat messages (one per incident and subscription) last edited before `beforeMs` whose incident has ended, oldest first. */
  pruneIncidentMessages(beforeMs: number, limit: number): Promise<number>;
  /** Sources' blind spells that ended before `endedBeforeMs`, oldest first. */
  pruneBlindSpells(endedBeforeMs: number, limit: number): Promise<number>;
  /**
   * Poll leases of sources not watched (removed, purging, or never there), held or not: no poll
   * takes one again, so nothing else would ever delete them. Never the main feed's lease, nor a
   * watched source's.
   */
  pruneSourceLeases(limit: number): Promise<number>;
}
