/**
 * Keys usable once, for a while: an install's OAuth `state` until its callback consumes
 * it, and the signatures of slash commands already answered, so a replay is refused. Every kind is
 * bounded: expired keys go, and past `maxKeys` the oldest go, on each write of that kind.
 */

export type OneTimeKey = {
  /** What the key is for (`oauth-state`, `slash-signature`): each kind has its own bound. */
  kind: string;
  key: string;
  /** Kept with the key and handed back by consumeKey (the admin session that started an install). */
  payload: string;
  expiresAt: number;
};

export interface OneTimeKeyStore {
  /**
   * Remembers a key; true when it was new, false when a live key of that kind is already stored
   * (a replay). Atomically drops the kind's expired keys and all but the newest `maxKeys`.
   */
  rememberKey(entry: OneTimeKey, now: number, maxKeys: number): Promise<boolean>;
  /**
   * Takes a live key out and gives its payload back; null when unknown, expired or already taken.
   * With `payload`, only a key kept with that payload is taken: a key shown by anyone else stays,
   * for the one it belongs to.
   */
  consumeKey(kind: string, key: string, now: number, payload?: string): Promise<string | null>;
}
