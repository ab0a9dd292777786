/**
 * What the archive knows of the vendor now, read once for a face: the feed's health and what it
 * says of now (core/knowledge.ts), so the dashboard, the vendor mirror and the MCP tools say
 * "unknown" from the same read and the same limit.
 */
import { assessKnowledge, type Knowledge } from '../core/knowledge.ts';
import type { ArchiveQueries, FeedHealth } from '../core/ports.ts';

export type FeedKnowledgeDeps = { store: Pick<ArchiveQueries, 'feedHealth'> };

export async function feedKnowledge({ store }: FeedKnowledgeDeps, nowMs: number): Promise<{ health: FeedHealth; knowledge: Knowledge }> {
  const health = await store.feedHealth();
  return { health, knowledge: assessKnowledge({ lastSuccessAt: health.lastSuccessAt, now: nowMs, consecutiveFailures: health.consecutiveFailures }) };
}
