/** When a token is used, refreshed or waited for: plain rows and times, no server. */
import { describe, expect, it } from 'vitest';
import type { InstallationRecord } from '../../src/core/ports.ts';
import { decideTokenStep } from '../../src/core/token-rotation.ts';

const EXPIRES = 1_000_000;
const settings = { refreshAheadMs: 300, claimTtlMs: 50 };
const row = (over: Partial<InstallationRecord> = {}): InstallationRecord => ({
  id: 'i',
  teamId: 'T',
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
  it('refreshes once the vendor said the token expired, whatever the clock says', () => {
    expect(decideTokenStep(row(), 0, settings, true)).toEqual({ kind: 'refresh' });
  });
  it('while another process holds a live claim: uses a still-valid token, else waits', () => {
    const claimed = row({ refreshClaimedAt: EXPIRES - 10 });
    expect(decideTokenStep(claimed, EXPIRES - 5, settings)).toEqual({ kind: 'use' });
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
