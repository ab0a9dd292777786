/**
 * When an installation's access token may be used and when it must be refreshed (issue 10): a pure
 * decision from the stored row and `now`. The caller does the I/O (app/app-tokens.ts).
 */
import type { InstallationRecord } from './ports/installations.ts';

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
 * `rejected` is true when the vendor just answered `token_expired` to the stored access token: it
 * is refreshed once, whatever our clock says.
 */
export function decideTokenStep(row: InstallationRecord, now: number, settings: RotationSettings, rejected = false): TokenStep {
  if (row.state !== 'active' || row.refreshTokenSealed === null || row.accessTokenSealed === null) {
    return { kind: 'gone', state: row.state === 'uninstalled' ? 'uninstalled' : 'broken', reason: row.reason };
  }
  const usable = !rejected && now < row.accessExpiresAt;
  const due = rejected || now >= row.accessExpiresAt - settings.refreshAheadMs;
  const claimLive = row.refreshClaimedAt !== null && now - row.refreshClaimedAt < settings.claimTtlMs;
  if (claimLive) return usable ? { kind: 'use' } : { kind: 'wait' };
  // A lapsed claim is a crash between the vendor's answer and our write: retry it at once.
  if (due || row.refreshClaimedAt !== null) return { kind: 'refresh' };
  return { kind: 'use' };
}
