/**
 * Checks a presented ADMIN_TOKEN under the guess throttle: one place for the bearer API and the
 * sign-in form, so guesses through either count against the same per-address and global logs.
 */
import type { Context } from 'hono';
import { timingSafeEqual } from 'hono/utils/buffer';
import { ALL_ADDRESSES_GUESSES, PER_ADDRESS_GUESSES, type GuessLimit } from '../core/guess-throttle.ts';
import { limitKeyForAddress } from '../core/rate-limit.ts';
import type { AdminAccessStore, Clock } from '../core/ports.ts';

export type TokenCheck = { outcome: 'right' } | { outcome: 'wrong' } | { outcome: 'throttled'; retryAfterSeconds: number };

/** `knownDeviceId`: a browser that signed in with this token before (admin-session.ts). */
export type AdminTokenCheck = (c: Context, presented: string, knownDeviceId?: string | null) => Promise<TokenCheck>;

export type AdminTokenCheckDeps = { store: Pick<AdminAccessStore, 'throttleGuess'>; clock: Clock; adminToken: string; clientAddress: (c: Context) => string };

export function createAdminTokenCheck(deps: AdminTokenCheckDeps): AdminTokenCheck {
  return async (c, presented, knownDeviceId) => {
    // No token at all guesses nothing: refused at once, and nothing is written for it.
    if (presented === '') return { outcome: 'wrong' };
    // timingSafeEqual compares hashes: how long it takes says nothing about how much was right.
    // Checked before the throttle decides, but a throttled answer is the same either way.
    const right = await timingSafeEqual(presented, deps.adminToken);
    // A known browser has a log of its own: only someone who had the token could have made it.
    const limits: GuessLimit[] = knownDeviceId
      ? [{ key: `admin-guess:device:${knownDeviceId}`, rule: PER_ADDRESS_GUESSES }]
      : [
          { key: `admin-guess:${limitKeyForAddress(deps.clientAddress(c))}`, rule: PER_ADDRESS_GUESSES },
          { key: 'admin-guess:all', rule: ALL_ADDRESSES_GUESSES },
        ];
    const decision = await deps.store.throttleGuess(limits, !right, deps.clock.now());
    if (!decision.allowed) return { outcome: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    return { outcome: right ? 'right' : 'wrong' };
  };
}
