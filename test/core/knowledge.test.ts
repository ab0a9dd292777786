import { describe, expect, it } from 'vitest';
import { assessKnowledge, STALE_AFTER_MS } from '../../src/core/knowledge.ts';

describe('assessKnowledge', () => {
  const now = Date.UTC(2026, 10, 1);
  it('never read: nothing is known, however recent the process', () => {
    expect(assessKnowledge({ lastSuccessAt: null, now })).toEqual({ kind: 'never-read' });
  });
  it('known up to the limit, stale from it on, since the last good read', () => {
    expect(assessKnowledge({ lastSuccessAt: now - STALE_AFTER_MS + 1, now }).kind).toBe('known');
    expect(assessKnowledge({ lastSuccessAt: now - STALE_AFTER_MS, now })).toEqual({ kind: 'stale', since: now - STALE_AFTER_MS });
    expect(assessKnowledge({ lastSuccessAt: now - 10, now, staleAfterMs: 10 })).toEqual({ kind: 'stale', since: now - 10 });
  });
});
