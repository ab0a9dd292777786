import { describe, expect, it } from 'vitest';
import { parseConfig, retentionSettings } from '../../src/config.ts';
import { CONFIRM_TOKEN_TTL_MS } from '../../src/core/confirmation-token.ts';
import { reliabilitySince } from '../../src/core/reliability.ts';
import { BLIND_SPELLS_KEPT_MS, DEFAULT_RETENTION, EXPIRED_TOKEN_KEPT_MS, MEMBER_SENDS_KEPT_MS, pruneCutoffs } from '../../src/core/retention.ts';
import { RETRY_DELAYS_MS, RETRY_JITTER_FRACTION } from '../../src/core/retry-schedule.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

describe('retention cutoffs', () => {
  it('turns the settings into instants before which each kind of row goes', () => {
    expect(pruneCutoffs(NOW, { pollRunsDays: 30, rejectedPayloadsDays: 7, rejectedPayloadsMaxBytes: 5_000_000 })).toEqual({
      pollRunsBeforeMs: NOW - 30 * DAY_MS,
      rejectedBodiesBeforeMs: NOW - 7 * DAY_MS,
      rejectedBodiesMaxBytes: 5_000_000,
      pendingSignupsBeforeMs: NOW - 7 * DAY_MS,
      tokensExpiredBeforeMs: NOW - 30 * DAY_MS,
      rateLimitsExpiredByMs: NOW,
      // A conversation's rate-limit hold goes once it has ended: it holds nothing after that.
      appHoldsExpiredByMs: NOW,
      memberSendsBeforeMs: NOW - 30 * DAY_MS,
      // A chat message about an incident that ended half a year ago is no longer edited.
      incidentMessagesBeforeMs: NOW - 180 * DAY_MS,
      // A source's blind spell goes once the track record no longer reaches it.
      blindSpellsEndedBeforeMs: NOW - 400 * DAY_MS,
    });
  });

  it("keeps a source's blind spells as far back as its track record reaches, whatever the day", () => {
    for (let day = 0; day < 366; day += 5) {
      const now = Date.UTC(2026, 0, 1, 23, 59) + day * DAY_MS;
      expect(pruneCutoffs(now, DEFAULT_RETENTION).blindSpellsEndedBeforeMs).toBeLessThan(reliabilitySince(now));
    }
    expect(BLIND_SPELLS_KEPT_MS).toBe(400 * DAY_MS);
  });

  it('keeps a group delivery’s per-member sends far longer than any retry of that delivery', () => {
    const longestRetriesMs = (1 + RETRY_JITTER_FRACTION) * RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
    expect(longestRetriesMs).toBeLessThan(34 * 60 * 60 * 1000);
    expect(MEMBER_SENDS_KEPT_MS).toBeGreaterThan(10 * longestRetriesMs);
    expect(NOW - pruneCutoffs(NOW, DEFAULT_RETENTION).memberSendsBeforeMs).toBe(MEMBER_SENDS_KEPT_MS);
  });

  it('never drops a sign-up whose first link may still be valid, nor a token before its expiry', () => {
    const cut = pruneCutoffs(NOW, DEFAULT_RETENTION);
    expect(NOW - cut.pendingSignupsBeforeMs).toBeGreaterThanOrEqual(CONFIRM_TOKEN_TTL_MS);
    expect(NOW - cut.tokensExpiredBeforeMs).toBe(EXPIRED_TOKEN_KEPT_MS);
  });
});

describe('retention settings', () => {
  it('default to a month of poll runs and refused payloads, 50 MB of payloads at most', () => {
    expect(retentionSettings(parseConfig({}))).toEqual({ pollRunsDays: 30, rejectedPayloadsDays: 30, rejectedPayloadsMaxBytes: 50_000_000 });
  });

  it('refuse values that would keep nothing or make no sense, naming the setting', () => {
    expect(() => parseConfig({ RETENTION_POLL_RUNS_DAYS: '0' })).toThrow(/RETENTION_POLL_RUNS_DAYS must be at least 1/);
    expect(() => parseConfig({ RETENTION_REJECTED_PAYLOADS_DAYS: 'a week' })).toThrow(/RETENTION_REJECTED_PAYLOADS_DAYS must be a number/);
    expect(() => parseConfig({ REJECTED_PAYLOADS_MAX_BYTES: '1000' })).toThrow(/REJECTED_PAYLOADS_MAX_BYTES must be at least 1000000/);
  });
});
