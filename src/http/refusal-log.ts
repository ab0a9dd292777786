/**
 * The log of refusals anyone can cause (a request without credentials, a wrong token), bounded
 * whatever their rate: the first refusal of a window is logged at once with its fields, the rest of
 * the window are counted, and the count is one line when the window is over. A flood of thousands
 * a minute is then two lines a minute, and a lone refusal is still seen at once.
 */
import type { Clock, Logger } from '../core/ports.ts';

/** One summary line per window at most. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** Addresses named in a summary: enough to see where a flood comes from, never a list that grows with it. */
const SAMPLED_ADDRESSES = 5;
/** Distinct reasons counted in a window; reasons are the caller's own codes, so this is never reached in practice. */
const COUNTED_REASONS = 20;

export type RefusalLog = {
  /** Notes one refusal: `reason` is the caller's code, `address` the client's. */
  refused(reason: string, address: string, fields?: Record<string, unknown>): void;
};

export function createRefusalLog(deps: { logger: Logger; clock: Clock }, message: string): RefusalLog {
  let windowStartMs: number | null = null;
  let unlogged = 0;
  const byReason = new Map<string, number>();
  const addresses = new Set<string>();

  // Said at the first refusal after the window: a runtime with no timer of its own (a Worker) owes nothing meanwhile.
  const summarize = () => {
    if (unlogged === 0) return;
    deps.logger.warn(`${message} (counted, not logged one by one)`, {
      count: unlogged,
      since: new Date(windowStartMs!).toISOString(),
      by_reason: Object.fromEntries(byReason),
      addresses_sampled: [...addresses],
      window_s: REFUSAL_LOG_WINDOW_MS / 1000,
    });
  };

  return {
    refused(reason, address, fields = {}) {
      const now = deps.clock.now();
      if (windowStartMs === null || now >= windowStartMs + REFUSAL_LOG_WINDOW_MS) {
        summarize();
        windowStartMs = now;
        unlogged = 0;
        byReason.clear();
        addresses.clear();
        deps.logger.warn(message, { reason_code: reason, address, ...fields, note: 'further refusals this minute are counted in one line' });
        return;
      }
      unlogged++;
      if (byReason.has(reason) || byReason.size < COUNTED_REASONS) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      if (addresses.size < SAMPLED_ADDRESSES) addresses.add(address.slice(0, 100));
    },
  };
}
