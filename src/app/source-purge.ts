/**
 * Deleting a source's archive in bounded steps: each step one short transaction (or D1 batch)
 * that removes at most a batch of rows of each kind, so a source of thousands of incidents never
 * holds the write lock for long. A request does a few steps; whatever is left, retention's next
 * runs delete (app/retention.ts), the source marked purging until then.
 */
import type { SourceStore } from '../core/ports.ts';
import { yieldToEventLoop } from './event-loop-slices.ts';

/** Rows of each kind one step deletes: retention's batch (PRUNE_BATCH_ROWS), one short transaction. */
export const PURGE_BATCH_ROWS = 500;
/**
 * Steps an admin's request takes before it answers "deleting": 5,000 incidents (and as many
 * notes, versions, events) at most, in ten D1 batches, well inside a request's time and a
 * Worker's subrequests. A larger archive is finished by retention within its next runs.
 */
export const PURGE_STEPS_PER_REQUEST = 10;

export type PurgeRun = { removedRows: number; done: boolean };

/** Steps of the source's purge until it is done or `maxSteps` were taken; yields between steps. */
export async function runPurgeSteps(
  store: Pick<SourceStore, 'purgeSourceStep'>,
  sourceId: string,
  { batchRows = PURGE_BATCH_ROWS, maxSteps, nowMs }: { batchRows?: number; maxSteps: number; nowMs: number },
): Promise<PurgeRun> {
  let removedRows = 0;
  for (let step = 0; step < maxSteps; step++) {
    const result = await store.purgeSourceStep(sourceId, batchRows, nowMs);
    removedRows += result.removedRows;
    if (result.done) return { removedRows, done: true };
    // Lets requests waiting on this process run between two steps.
    await yieldToEventLoop();
  }
  return { removedRows, done: false };
}
