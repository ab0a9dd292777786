/** When a token is used, refreshed or waited for: plain rows and times, no server. */
import { describe, expect, it } from 'vitest';
import type { InstallationRecord } from '../../../src/core/ports.ts';
import { decideTokenStep } from '../../../src/core/workspace-app/token-rotation.ts';

const EXPIRES = 1_000_000;
const settings = { refreshAheadMs: 300, claimTtlMs: 50 };
const row = (over: Partial<InstallationRecord> = {}): InstallationRecord => ({
  id: 'i',
  teamId: 'T',
  teamName: null,
  botUserId: 'U',
  scopes: [],
  accessTokenSealed: 'a',
  refreshTokenSealed: 'r',
  accessExpiresAt: EXPIRES,
  state: 'active',
  reason: null,
  refreshClaimedAt: null,
  updatedAt: 0,
  ...over,
});

describe('decideTokenStep', () => {
  it('uses a token well before expiry and refreshes it inside the margin', () => {
    expect(decideTokenStep(row(), EXPIRES - 301, settings)).toEqual({ kind: 'use' });
    expect(decideTokenStep(row(), EXPIRES - 300, settings)).toEqual({ kind: 'refresh' });
  });
  it('refreshes a token that lives less than the margin at half its life, not on every use', () => {
    // A 6-second token and a 5-minute margin: the margin would make every read a refresh, and
    // every refresh revokes (at the vendor's limit of two) a token another process may hold.
    const issued = EXPIRES - 6_000;
    const short = row({ updatedAt: issued });
    const wide = { refreshAheadMs: 300_000, claimTtlMs: 5_000 };
    expect(decideTokenStep(short, issued + 1, wide)).toEqual({ kind: 'use' });
    expect(decideTokenStep(short, issued + 2_999, wide)).toEqual({ kind: 'use' });
    expect(decideTokenStep(short, issued + 3_000, wide)).toEqual({ kind: 'refresh' });
  });
  it('refreshes once the vendor said the token expired, whatever the clock says', () => {
    expect(decideTokenStep(row(), 0, settings, true)).toEqual({ kind: 'refresh' });
  });
  it('while another process holds a live claim: uses a token not yet due, else waits for the new one', () => {
    // Claimed early (the vendor refused the token: a clock behind the vendor's), our clock says
    // the token is good: it is used.
    expect(decideTokenStep(row({ refreshClaimedAt: EXPIRES - 1_000 }), EXPIRES - 990, settings)).toEqual({ kind: 'use' });
    // Claimed when due: the token is not handed out, even though it has not run out. The holder
    // may be recovering from a crash (its refresh revokes this token at the limit of two), or may
    // have crashed (the token would run out while the claim is live).
    const claimed = row({ refreshClaimedAt: EXPIRES - 20 });
    expect(decideTokenStep(claimed, EXPIRES - 10, settings)).toEqual({ kind: 'wait' });
    expect(decideTokenStep(claimed, EXPIRES, settings)).toEqual({ kind: 'wait' });
  });
  it('retries a lapsed claim at once, even before the refresh margin', () => {
    expect(decideTokenStep(row({ refreshClaimedAt: 0 }), 50, settings)).toEqual({ kind: 'refresh' });
  });
  it('gives nothing for a broken or uninstalled installation', () => {
    expect(decideTokenStep(row({ state: 'broken', reason: 'invalid_refresh_token' }), 0, settings)).toEqual({
      kind: 'gone',
      state: 'broken',
      reason: 'invalid_refresh_token',
    });
    expect(decideTokenStep(row({ state: 'uninstalled', accessTokenSealed: null, refreshTokenSealed: null }), 0, settings)).toMatchObject({
      kind: 'gone',
      state: 'uninstalled',
    });
  });
});
