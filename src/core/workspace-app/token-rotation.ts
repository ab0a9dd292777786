/**
 * When an installation's access token may be used and when it must be refreshed: a pure
 * decision from the stored row and `now`. The caller does the I/O (app/workspace-app/tokens.ts).
 */
import type { InstallationRecord } from '../ports/installations.ts';

export type RotationSettings = {
  /** Refresh this long before the access token expires, so no call is made with an expired one. */
  refreshAheadMs: number;
  /**
   * A claim older than this is taken to be a crashed process's: the next process retries the same
   * refresh token. Longer than a refresh call's timeout, well inside the vendor's grace period.
   */
  claimTtlMs: number;
};

export const DEFAULT_ROTATION: RotationSettings = { refreshAheadMs: 300_000, claimTtlMs: 5_000 };

export type TokenStep =
  | { kind: 'gone'; state: 'broken' | 'uninstalled'; reason: string | null }
  /** The stored access token is good to use. */
  | { kind: 'use' }
  /** Claim the refresh of the stored refresh token, then call the vendor. */
  | { kind: 'refresh' }
  /** Another process is refreshing and the stored token cannot be used: read again shortly. */
  | { kind: 'wait' };

/**
 * How long before expiry this row's token is refreshed: `refreshAheadMs`, but never more than half
 * the token's lifetime. A vendor (or a simulator) may send a shorter `expires_in` than the margin:
 * refreshing on every use then spends a refresh token per call, and the vendor's limit of two
 * active tokens revokes a token another process has just read. While no claim is held, `updatedAt`
 * is when the current pair was stored (saveInstallation, swapTokens): the token's issue. A claim
 * does not move it.
 */
function refreshAheadOf(row: InstallationRecord, settings: RotationSettings): number {
  const lifetimeMs = row.accessExpiresAt - row.updatedAt;
  return Math.max(0, Math.min(settings.refreshAheadMs, lifetimeMs / 2));
}

/**
 * `rejected` is true when the vendor just answered `token_expired` to the stored access token: it
 * is refreshed once, whatever our clock says.
 */
export function decideTokenStep(row: InstallationRecord, now: number, settings: RotationSettings, rejected = false): TokenStep {
  if (row.state !== 'active' || row.refreshTokenSealed === null || row.accessTokenSealed === null) {
    return { kind: 'gone', state: row.state === 'uninstalled' ? 'uninstalled' : 'broken', reason: row.reason };
  }
  const due = rejected || now >= row.accessExpiresAt - refreshAheadOf(row, settings);
  const claimLive = row.refreshClaimedAt !== null && now - row.refreshClaimedAt < settings.claimTtlMs;
  // A token being replaced is not handed out: the claim holder may be a recovery after a crash,
  // whose refresh makes a third active token and so revokes this one; and a holder that crashed
  // leaves it to run out while its claim is live. A refresh takes milliseconds; a wait, 100.
  if (claimLive) return due ? { kind: 'wait' } : { kind: 'use' };
  // A lapsed claim is a crash between the vendor's answer and our write: retry it at once.
  if (due || row.refreshClaimedAt !== null) return { kind: 'refresh' };
  return { kind: 'use' };
}
