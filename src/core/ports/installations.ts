/**
 * The vendor app's installations and their rotating tokens. Tokens are stored only
 * sealed by the secret box; the store compares sealed text, never plaintext.
 */

export type InstallationState = 'active' | 'broken' | 'uninstalled';

/** An installation as stored. The sealed tokens are null once it is uninstalled. */
export type InstallationRecord = {
  id: string;
  teamId: string;
  /** The workspace's name as the vendor last gave it (auth.test's `team`); null when it gave none. */
  teamName: string | null;
  botUserId: string;
  scopes: string[];
  accessTokenSealed: string | null;
  refreshTokenSealed: string | null;
  accessExpiresAt: number;
  state: InstallationState;
  /** Why it is broken or uninstalled, for the admin. */
  reason: string | null;
  /**
   * When a refresh of `refreshTokenSealed` was claimed. Recorded before the vendor is called, so a
   * process that finds it set after a crash retries the same refresh token inside the grace period.
   */
  refreshClaimedAt: number | null;
  /**
   * When the row last changed state or token pair: while active, when the stored access token was
   * issued. workspace-app/token-rotation.ts reads the token's lifetime as `accessExpiresAt - updatedAt`, so a
   * write that touches this without a new pair (a claim does not) would shorten its refresh margin.
   */
  updatedAt: number;
};

/** A new pair the vendor issued, sealed. */
export type SealedTokenPair = { accessTokenSealed: string; refreshTokenSealed: string; accessExpiresAt: number };

export type NewInstallation = Omit<InstallationRecord, 'state' | 'reason' | 'refreshClaimedAt' | 'updatedAt' | 'accessTokenSealed' | 'refreshTokenSealed'> &
  SealedTokenPair;

export interface InstallationStore {
  /** Installs, or re-installs the same team: active again, with the new tokens and no reason. */
  saveInstallation(installation: NewInstallation, now: number): Promise<InstallationRecord>;
  findInstallation(id: string): Promise<InstallationRecord | null>;
  /** The newest first, at most `limit`. */
  listInstallations(limit: number): Promise<InstallationRecord[]>;
  /**
   * Claims the refresh of `refreshTokenSealed` (the one the caller read): true when the claim is
   * ours. False when the token was already swapped, the installation is not active, or another
   * process claimed it less than `claimTtlMs` ago (it is refreshing: read its result later).
   */
  claimRefresh(id: string, refreshTokenSealed: string, now: number, claimTtlMs: number): Promise<boolean>;
  /**
   * The compare-and-swap on the old refresh token: stores the new pair only while the old refresh
   * token is still the stored one. False when another process swapped first (read its pair).
   */
  swapTokens(id: string, oldRefreshTokenSealed: string, pair: SealedTokenPair, now: number): Promise<boolean>;
  /**
   * Stops using the installation until it is re-installed; keeps its tokens. True only for the
   * call that moved it from active: the one process that tells the admin.
   */
  markBroken(id: string, reason: string, now: number): Promise<boolean>;
  /** Removes the tokens for good. True only for the call that uninstalled it (it was not already). */
  markUninstalled(id: string, reason: string, now: number): Promise<boolean>;
}
