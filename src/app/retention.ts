/**
 * Pruning what retention no longer keeps (core/retention.ts): old poll runs, rejected payloads
 * past their age or the size cap, unconfirmed sign-ups, expired link tokens, rate-limit logs and
 * the workspace app's ended conversation holds, group deliveries' old per-member sends, and the
 * records of chat messages about incidents that ended long ago, sources' blind spells beyond the
 * track record's reach, the poll leases of sources no longer watched; and what is left of the archives
 * of sources removed with their archive (app/source-purge.ts).
 * Deletes in bounded batches so a large backlog never holds the write lock for long.
 */
import type { Logger, RetentionStore, SourceStore } from '../core/ports.ts';
import { pruneCutoffs, type PruneCounts, type RetentionSettings } from '../core/retention.ts';
import { yieldToEventLoop } from './event-loop-slices.ts';
import { runPurgeSteps } from './source-purge.ts';

/** Rows per batch: each batch is one short transaction (or D1 batch). */
export const PRUNE_BATCH_ROWS = 500;
/**
 * Batches per kind in one run. A backlog larger than this (a first run over a long-grown
 * database) is finished by the next runs, so one run never keeps the database busy for long.
 */
export const PRUNE_MAX_BATCHES = 200;

export type PrunerDeps = {
  store: RetentionStore & Pick<SourceStore, 'purgingSources' | 'purgeSourceStep'>;
  logger: Logger;
  settings: RetentionSettings;
  batchRows?: number;
};

export type Pruner = { pruneExpired(now: number): Promise<PruneCounts> };

export function createPruner({ store, logger, settings, batchRows = PRUNE_BATCH_ROWS }: PrunerDeps): Pruner {
  /** Repeats one kind's batch while batches come back full. */
  async function drain(batch: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (let i = 0; i < PRUNE_MAX_BATCHES; i++) {
      const removed = await batch(batchRows);
      total += removed;
      if (removed < batchRows) break;
      // Lets requests waiting on this process run between two batches.
      await yieldToEventLoop();
    }
    return total;
  }

  /** Goes on with every purge a request left unfinished, as many steps per source as a kind's batches. */
  async function purgeLeftovers(nowMs: number): Promise<number> {
    let total = 0;
    for (const sourceId of await store.purgingSources()) {
      total += (await runPurgeSteps(store, sourceId, { batchRows, maxSteps: PRUNE_MAX_BATCHES, nowMs })).removedRows;
    }
    return total;
  }

  return {
    async pruneExpired(now) {
      const cut = pruneCutoffs(now, settings);
      const counts: PruneCounts = {
        pollRuns: await drain((limit) => store.prunePollRuns(cut.pollRunsBeforeMs, limit)),
        rejectedBodies: await drain((limit) => store.pruneRejectedBodies(cut.rejectedBodiesBeforeMs, cut.rejectedBodiesMaxBytes, limit)),
        pendingSignups: await drain((limit) => store.prunePendingSignups(cut.pendingSignupsBeforeMs, now, limit)),
        linkTokens: await drain((limit) => store.pruneLinkTokens(cut.tokensExpiredBeforeMs, limit)),
        rateLimits: await drain((limit) => store.pruneRateLimits(cut.rateLimitsExpiredByMs, limit)),
        appConversationHolds: await drain((limit) => store.pruneAppConversationHolds(cut.appHoldsExpiredByMs, limit)),
        groupMemberSends: await drain((limit) => store.pruneGroupMemberSends(cut.memberSendsBeforeMs, limit)),
        incidentMessages: await drain((limit) => store.pruneIncidentMessages(cut.incidentMessagesBeforeMs, limit)),
        blindSpells: await drain((limit) => store.pruneBlindSpells(cut.blindSpellsEndedBeforeMs, limit)),
        sourceLeases: await drain((limit) => store.pruneSourceLeases(limit)),
        purgedSourceRows: await purgeLeftovers(now),
      };
      // Silent when nothing went: a line every ten minutes saying so would only bury the others.
      if (Object.values(counts).some((n) => n > 0)) logger.info('pruned expired rows', counts);
      return counts;
    },
  };
}
