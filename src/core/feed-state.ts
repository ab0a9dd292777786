/**
 * How the vendor's feed is being read, in the four states an admin tells apart: read and current,
 * read but the latest attempts fail (stale), not read for the staleness limit (blind), or never
 * read at all. Pure: the caller passes the feed's health and the clock.
 */
import { assessKnowledge, STALE_AFTER_MS } from './knowledge.ts';
import type { FeedHealth } from './ports.ts';

export type FeedState =
  | { kind: 'ok'; lastSuccessAt: number }
  /** Read within the limit, but the latest `failures` attempts failed: what we show is getting old. */
  | { kind: 'stale'; lastSuccessAt: number; failures: number; lastError: string | null }
  /** No good read for the staleness limit: every public face says "unknown" (knowledge.ts). */
  | { kind: 'blind'; since: number; failures: number; lastError: string | null }
  /** Not one successful read yet; `attempted` is false before the first poll ran at all. */
  | { kind: 'never-read'; attempted: boolean; lastError: string | null };

export function feedState(health: FeedHealth, now: number, staleAfterMs = STALE_AFTER_MS): FeedState {
  const lastError = health.consecutiveFailures > 0 ? (health.lastRun?.error ?? null) : null;
  const knowledge = assessKnowledge({ lastSuccessAt: health.lastSuccessAt, now, staleAfterMs });
  if (knowledge.kind === 'never-read') return { kind: 'never-read', attempted: health.lastRun !== null, lastError: health.lastRun?.error ?? null };
  if (knowledge.kind === 'stale') return { kind: 'blind', since: knowledge.since, failures: health.consecutiveFailures, lastError };
  if (health.consecutiveFailures > 0) return { kind: 'stale', lastSuccessAt: knowledge.lastSuccessAt, failures: health.consecutiveFailures, lastError };
  return { kind: 'ok', lastSuccessAt: knowledge.lastSuccessAt };
}
