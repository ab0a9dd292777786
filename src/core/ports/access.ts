/** Who may act: email link tokens, rate limits, admin sessions and the admin-token guess throttle. */
import type { StoredToken, TokenRecord } from '../confirmation-token.ts';
import type { GuessDecision, GuessLimit } from '../guess-throttle.ts';
import type { LimitDecision, LimitRule } from '../rate-limit.ts';

/** Email link tokens (confirm, unsubscribe), stored only as their hash. */
export interface LinkTokenStore {
  saveToken(record: TokenRecord & { subscriptionId: string }): Promise<void>;
  findToken(hash: string): Promise<(StoredToken & { subscriptionId: string }) | null>;
  markTokenUsed(hash: string, now: number): Promise<void>;
}

export interface RateLimitStore {
  /**
   * Applies one hit to a limiter log atomically (across processes); the decision says whether it
   * was allowed. With `peek`, only says whether a hit would be, recording nothing.
   */
  hitRateLimit(key: string, rule: LimitRule, now: number, options?: { peek?: boolean }): Promise<LimitDecision>;
}

/** An admin session as stored: never its id (only a hash) nor the token (only a fingerprint). */
export type AdminSessionRecord = { idHash: string; tokenFingerprint: string; createdAt: number; expiresAt: number };

/** Admin sessions and the throttle of admin-token guesses. */
export interface AdminAccessStore {
  /**
   * Saves a new session; on the way drops expired sessions, sessions made with another token, and
   * all but the newest `maxLive`, so the table stays small whoever signs in how often.
   */
  createAdminSession(session: AdminSessionRecord, maxLive: number): Promise<void>;
  /**
   * The live session with this id hash made with this token fingerprint, marked seen at `now`;
   * null otherwise. Sessions made with any other token are deleted first: a new ADMIN_TOKEN ends them.
   */
  touchAdminSession(idHash: string, tokenFingerprint: string, now: number): Promise<AdminSessionRecord | null>;
  deleteAdminSession(idHash: string): Promise<void>;
  /** Decides one guess of the admin token against the logs of `limits` and writes the decision, atomically. */
  throttleGuess(limits: readonly GuessLimit[], wrong: boolean, now: number): Promise<GuessDecision>;
}
