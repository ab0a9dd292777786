/**
 * Polls of sources spread over queue messages, for a runtime whose invocations each have a budget
 * of outgoing requests (Workers): the cron asks for a poll of every source, one message each, and
 * the queue's consumer polls each message's source under the source's lease, side by side with
 * the rest of its batch. The cron's own budget then carries the main feed, not the pages.
 */
import type { Clock, Logger, SourcePollQueue, SourcePollRequest, SourceStore } from '../core/ports.ts';
import { forEachAtMost } from './concurrency.ts';
import type { SourcePoller, SourcePollResult } from './source-poller.ts';

/** Queues takes at most 100 messages in one sendBatch call. */
export const SOURCE_REQUESTS_PER_SEND = 100;

/** Polls of one batch at once: a Worker invocation keeps at most six connections open. */
export const ASKED_POLLS_AT_ONCE = 6;

/** True for a message body that asks for a source's poll; anything else is not one. */
export function isSourcePollRequest(body: unknown): body is SourcePollRequest {
  if (typeof body !== 'object' || body === null) return false;
  const request = body as Record<string, unknown>;
  return request.kind === 'poll_source' && typeof request.sourceId === 'string' && typeof request.askedAt === 'number';
}

/** Asks for a poll of every source now, one request each; the count asked for. */
export async function askForSourcePolls(deps: { store: Pick<SourceStore, 'listSources'>; queue: SourcePollQueue; clock: Clock }): Promise<number> {
  const askedAt = deps.clock.now();
  const requests = (await deps.store.listSources()).map((s) => ({ body: { kind: 'poll_source', sourceId: s.id, askedAt } satisfies SourcePollRequest }));
  for (let start = 0; start < requests.length; start += SOURCE_REQUESTS_PER_SEND) {
    await deps.queue.sendBatch(requests.slice(start, start + SOURCE_REQUESTS_PER_SEND));
  }
  return requests.length;
}

/**
 * What became of one request: `done` (polled, failed on the page's side, skipped because another
 * poll holds the lease or already ran, or the source is gone) is answered; `retry` when the
 * archive refused the poll's writes, so the queue brings it again after its delay, a bounded
 * number of times (the next cron tick asks anew in any case).
 */
export type AskedPollOutcome = { request: SourcePollRequest; answer: 'done' | 'retry'; result?: SourcePollResult; error?: string };

/**
 * Polls each request's source, ASKED_POLLS_AT_ONCE at once: a page that is slow or dead holds one
 * place for at most its reads' time limits while the others go on in the rest. Outcomes in the
 * order of the requests.
 */
export async function pollAskedSources(
  deps: { sourcePoller: Pick<SourcePoller, 'pollSource'>; logger: Logger },
  requests: readonly SourcePollRequest[],
): Promise<AskedPollOutcome[]> {
  const outcomes = new Map<SourcePollRequest, AskedPollOutcome>();
  await forEachAtMost(requests, ASKED_POLLS_AT_ONCE, async (request) => {
    try {
      const result = await deps.sourcePoller.pollSource(request.sourceId, { unlessPolledSince: request.askedAt });
      outcomes.set(request, { request, answer: 'done', result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.error('source poll failed; the queue will bring it again', { source: request.sourceId, error: message });
      outcomes.set(request, { request, answer: 'retry', error: message });
    }
  });
  return requests.map((request) => outcomes.get(request) ?? { request, answer: 'retry' });
}
