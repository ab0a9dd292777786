/**
 * The app's tokens: a valid access token for an installation, rotated ahead of expiry
 * by one process at a time, and installs from a long-lived token. A refresh token is single use:
 * the refresh is claimed in the store before the vendor is called, and the new pair is written by
 * one compare-and-swap on the old refresh token, so a race or a crash never spends one twice.
 */
import { WebApiError } from '../../core/errors.ts';
import type { Clock, InstallationRecord, InstallationStore, SealedTokenPair, TokenGrant, VendorWebApi } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { activeInstallations } from './installation-lists.ts';
import { decideTokenStep, DEFAULT_ROTATION, type RotationSettings } from '../../core/workspace-app/token-rotation.ts';

/**
 * The vendor's answers about one access token that a fresh token cures: it ran out, or (with token
 * rotation, spec "Token states") that one token was revoked, which leaves the installation as it
 * was and new tokens can still be had.
 */
const TOKEN_REPLACEABLE: ReadonlySet<string> = new Set(['token_expired', 'token_revoked']);

/**
 * The vendor's answers that mean the installation's grant is gone: only a re-install helps.
 * `token_revoked` counts only when a freshly refreshed token is refused too (withToken): then it is
 * the installation's tokens, not one of them, that were revoked.
 */
export const GRANT_GONE: ReadonlySet<string> = new Set([
  'invalid_refresh_token',
  'token_revoked',
  'invalid_auth',
  'account_inactive',
  'app_uninstalled',
  'invalid_client_id',
  'bad_client_secret',
]);

/** An installation that cannot give a token: unknown, broken (with the vendor's reason) or uninstalled. */
export class InstallationUnavailableError extends Error {
  override readonly name = 'InstallationUnavailableError';
  readonly retryable = false;
  constructor(
    readonly installationId: string,
    readonly state: 'unknown' | 'broken' | 'uninstalled',
    readonly reason: string | null,
  ) {
    super(`installation ${installationId} is ${state}${reason ? `: ${reason}` : ''}`);
  }

  /** How it stands, for a person: `broken (invalid_refresh_token)`. */
  get standing(): string {
    return installationStanding(this);
  }
}

/** An installation's state and the vendor's reason, as every message about it words them. */
export function installationStanding(installation: { state: string; reason: string | null }): string {
  return `${installation.state}${installation.reason ? ` (${installation.reason})` : ''}`;
}

/** Another process held the refresh for longer than we would wait. */
export class TokenBusyError extends Error {
  override readonly name = 'TokenBusyError';
  readonly retryable = true;
  constructor(readonly installationId: string) {
    super(`installation ${installationId}: another process is refreshing its token`);
  }
}

export type AppTokensDeps = {
  store: InstallationStore;
  webApi: VendorWebApi;
  box: SecretBox;
  clock: Clock;
  rotation?: RotationSettings;
  /**
   * Waits between reads while another process refreshes. Given by the runtime (a timer on Node,
   * on Workers too): the use cases name no timer API themselves (runtime-neutral-time.test.ts).
   */
  sleep: (ms: number) => Promise<void>;
  newId?: () => string;
  /**
   * Told once when an installation breaks (the process whose write moved it from active): the admin
   * is told (installs.ts). Never told of tokens, only of the installation and the reason.
   */
  onBroken?: (installation: InstallationRecord) => Promise<void>;
};

export type AppTokens = {
  /**
   * A valid access token. With `rejected` (the token the vendor just answered `token_expired` or
   * `token_revoked` to), refreshes once even if our clock thinks it is still good.
   */
  accessToken(installationId: string, options?: { rejected?: string }): Promise<string>;
  /**
   * Runs calls with the installation's token; when the vendor refuses that token in a way a fresh
   * one cures (TOKEN_REPLACEABLE), gets a fresh one and runs them once more. A second refusal is
   * the caller's to read (reportVendorError).
   */
  withToken<T>(installationId: string, run: (token: string) => Promise<T>): Promise<T>;
  /** Exchanges a long-lived token once (oauth.v2.exchange), checks it (auth.test), stores it sealed. */
  installFromToken(longLivedToken: string): Promise<InstallationRecord>;
  /** A grant from an install's code (oauth.v2.access): checked (auth.test) and stored sealed. */
  installGrant(grant: TokenGrant): Promise<InstallationRecord>;
  /**
   * The vendor answered a call made with this installation's token with `code`: when the code means
   * the grant is gone (GRANT_GONE), the installation is marked broken (`app_uninstalled`:
   * uninstalled, tokens removed) and the admin told once. True when it was such a code.
   */
  reportVendorError(installationId: string, code: string): Promise<boolean>;
  /**
   * Retries at once the refreshes that a crashed process left claimed (of the active installations
   * activeInstallations reads): the vendor honours a spent refresh token only inside its grace period, so
   * the retry cannot wait for the token's next use. Run when a process starts. Says how many
   * were retried and how many of those failed (the next use tries again, or finds it broken).
   */
  recoverClaims(): Promise<{ retried: number; failed: number }>;
};

const WAIT_STEP_MS = 100;
// Enough reads to outlast one claim: claimTtlMs / WAIT_STEP_MS, and a few more.
const extraReads = 5;

export function createAppTokens(deps: AppTokensDeps): AppTokens {
  const rotation = deps.rotation ?? DEFAULT_ROTATION;
  const newId = deps.newId ?? (() => crypto.randomUUID());
  const { store, webApi, box, clock, sleep } = deps;

  async function sealGrant(grant: TokenGrant, now: number): Promise<SealedTokenPair> {
    return {
      accessTokenSealed: await box.seal(grant.accessToken),
      refreshTokenSealed: await box.seal(grant.refreshToken),
      // expires_in as sent: the spec says 43,200 s, a test or a future vendor may say otherwise.
      accessExpiresAt: now + grant.expiresInSeconds * 1000,
    };
  }

  /** Broken (or uninstalled, when the vendor says so), and the admin told by the process that moved it. */
  async function markGone(id: string, code: string): Promise<void> {
    const now = clock.now();
    const moved = code === 'app_uninstalled' ? await store.markUninstalled(id, code, now) : await store.markBroken(id, code, now);
    if (!moved || !deps.onBroken) return;
    const after = await store.findInstallation(id);
    if (after) await deps.onBroken(after);
  }

  /** One refresh with the claim held: the new access token, or null when another process swapped first. */
  async function refreshClaimed(row: InstallationRecord & { refreshTokenSealed: string }): Promise<string | null> {
    let grant: TokenGrant;
    try {
      grant = await webApi.refresh(await box.open(row.refreshTokenSealed));
    } catch (error) {
      if (error instanceof WebApiError && GRANT_GONE.has(error.code)) {
        await markGone(row.id, error.code);
        throw new InstallationUnavailableError(row.id, 'broken', error.code);
      }
      // The claim stays: if the vendor did act, the next try spends the same token inside grace.
      throw error;
    }
    const now = clock.now();
    const swapped = await store.swapTokens(row.id, row.refreshTokenSealed, await sealGrant(grant, now), now);
    return swapped ? grant.accessToken : null;
  }

  /** Checks a new grant's token with the vendor (auth.test) and stores it sealed. */
  async function installGrant(grant: TokenGrant): Promise<InstallationRecord> {
    const identity = await webApi.identify(grant.accessToken);
    const now = clock.now();
    return store.saveInstallation(
      { id: newId(), teamId: identity.teamId, teamName: identity.teamName, botUserId: grant.botUserId, scopes: grant.scopes, ...(await sealGrant(grant, now)) },
      now,
    );
  }

  const tokens: AppTokens = {
    async accessToken(installationId, options = {}) {
      let rejected = options.rejected;
      const maxReads = Math.ceil(rotation.claimTtlMs / WAIT_STEP_MS) + extraReads;
      for (let read = 0; read < maxReads; read++) {
        const row = await store.findInstallation(installationId);
        if (!row) throw new InstallationUnavailableError(installationId, 'unknown', null);
        const now = clock.now();
        const stored = row.accessTokenSealed === null ? null : await box.open(row.accessTokenSealed);
        const step = decideTokenStep(row, now, rotation, rejected !== undefined && rejected === stored);
        if (step.kind === 'gone') throw new InstallationUnavailableError(installationId, step.state, step.reason);
        if (step.kind === 'use' && stored !== null) return stored;
        if (step.kind === 'refresh' && row.refreshTokenSealed !== null) {
          if (await store.claimRefresh(row.id, row.refreshTokenSealed, now, rotation.claimTtlMs)) {
            const fresh = await refreshClaimed({ ...row, refreshTokenSealed: row.refreshTokenSealed });
            if (fresh !== null) return fresh;
          }
          // We lost the claim or the swap: the winner's token is read next time round.
          rejected = undefined;
          continue;
        }
        await sleep(WAIT_STEP_MS);
      }
      throw new TokenBusyError(installationId);
    },

    async withToken(installationId, run) {
      const token = await tokens.accessToken(installationId);
      try {
        return await run(token);
      } catch (error) {
        if (!(error instanceof WebApiError) || !TOKEN_REPLACEABLE.has(error.code)) throw error;
        return run(await tokens.accessToken(installationId, { rejected: token }));
      }
    },

    async reportVendorError(installationId, code) {
      if (!GRANT_GONE.has(code)) return false;
      await markGone(installationId, code);
      return true;
    },

    async recoverClaims() {
      const claimed = (await activeInstallations({ store })).filter((row) => row.refreshClaimedAt !== null);
      let failed = 0;
      for (const row of claimed) {
        // Waits out the crashed process's claim, then spends the same refresh token once more.
        await tokens.accessToken(row.id).catch(() => failed++);
      }
      return { retried: claimed.length, failed };
    },

    installFromToken: async (longLivedToken) => installGrant(await webApi.exchange(longLivedToken)),
    installGrant,
  };
  return tokens;
}
