/**
 * Installing the workspace app and looking after its installations: the OAuth flow
 * with a one-time state bound to the admin session, installing from a pasted long-lived token,
 * uninstalling, and the conversations an admin picks from, walked with the vendor's cursors.
 */
import { WebApiError } from '../../core/errors.ts';
import { createSkipTally, logSkips } from '../../core/outside-records.ts';
import type {
  Clock,
  InstallationRecord,
  InstallationStore,
  Logger,
  OneTimeKeyStore,
  VendorConversation,
  VendorInstallApi,
  VendorWebApi,
} from '../../core/ports.ts';
import { toHex } from '../../core/bytes.ts';
import { randomSecret } from '../../core/cursor.ts';
import { APP_BOT_SCOPES } from '../../core/workspace-app/manifest.ts';
import { GRANT_GONE, installationStanding, InstallationUnavailableError, type AppTokens } from './tokens.ts';

/** How long an admin has between "Add to workspace" and the vendor's redirect back. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** States kept at once: one per click of "Add to workspace"; past this the oldest are forgotten. */
export const OAUTH_STATES_MAX = 100;
export const OAUTH_STATE_KIND = 'oauth-state';

/** The vendor's recommended page size ("100-200"), and the most one of our pages holds. */
export const CONVERSATIONS_PAGE_MAX = 200;
/**
 * Vendor pages one request of ours reads at most: "fewer results than limit can be returned even
 * when more remain", so a vendor that sends short (or empty) pages could keep us walking forever.
 */
export const VENDOR_PAGES_PER_REQUEST = 10;

/** Why an install or an action on an installation failed, worded for the admin. */
export type InstallFailure =
  /** The admin said no on the vendor's page. */
  | 'denied'
  /** The callback's state is unknown, expired, already used, or not this session's. */
  | 'bad_state'
  /** The pasted token was exchanged before: the vendor will not exchange it twice. */
  | 'already_exchanged'
  /** The vendor refused (the error code is kept) or could not be reached. */
  | 'vendor'
  | 'not_found'
  /** An uninstalled or broken installation has no token to list conversations with. */
  | 'unavailable';

export class InstallError extends Error {
  override readonly name = 'InstallError';
  constructor(
    readonly failure: InstallFailure,
    message: string,
    /** The vendor's error code, when the vendor refused. */
    readonly vendorCode: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where our own page of conversations starts: a vendor cursor (null: the first page) and how many of that page were already given. */
export type ConversationsPosition = { vendorCursor: string | null; skip: number };

export type ConversationsPage = { conversations: VendorConversation[]; next: ConversationsPosition | null };

export type AppInstallsDeps = {
  store: InstallationStore & OneTimeKeyStore;
  webApi: VendorWebApi & VendorInstallApi;
  tokens: AppTokens;
  clock: Clock;
  /** Where the conversations' records the vendor sent malformed are reported (core/outside-records.ts). */
  logger: Logger;
  /** APP_API_URL: the vendor's authorize page is under it. */
  apiUrl: string;
  clientId: string;
  /** PUBLIC_URL + APP_PATHS.oauthRedirect, exactly as the manifest lists it. */
  redirectUri: string;
  /** Hashes a state before it is stored, so the table alone cannot finish anyone's install. */
  hash?: (text: string) => Promise<string>;
};

export type AppInstalls = {
  /**
   * Starts an install from an admin session. `binding` is the hash of a secret only the admin's
   * browser holds (a cookie set with the redirect): the callback must show the same. Returns the
   * vendor's authorize URL to send the browser to, and the state it carries back.
   */
  startInstall(binding: string, options?: { teamId?: string }): Promise<{ authorizeUrl: string; state: string }>;
  /**
   * The callback: takes the state if it is unexpired and this browser's (one shown by another
   * browser stays for its own), then exchanges the code.
   */
  finishInstall(callback: { state: string | null; code: string | null; error: string | null; binding: string | null }): Promise<InstallationRecord>;
  /** A pasted long-lived token, exchanged once (oauth.v2.exchange). */
  installFromToken(token: string): Promise<InstallationRecord>;
  /** apps.uninstall, then the tokens are removed (also when the vendor says it is already gone). */
  uninstall(id: string): Promise<InstallationRecord>;
  /** One page of ours over the vendor's cursor pagination. */
  conversations(id: string, from: ConversationsPosition | null, limit: number): Promise<ConversationsPage>;
};

export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** A vendor failure as the admin reads it: what the vendor said, never a token or a stack. */
function vendorFailure(action: string, error: unknown): InstallError {
  if (error instanceof InstallError) return error;
  if (error instanceof WebApiError) {
    if (error.code === 'token_already_exchanged') {
      return new InstallError(
        'already_exchanged',
        'That token was exchanged before, and the vendor exchanges a token only once. Install the app again (Add to workspace), or use a token that was never exchanged.',
        error.code,
        { cause: error },
      );
    }
    const reachable = !['timeout', 'network'].includes(error.code) && !error.code.startsWith('http_');
    const said = reachable ? `the vendor answered ${error.code}` : `the vendor could not be reached (${error.code})`;
    return new InstallError('vendor', `${action} failed: ${said}.`, error.code, { cause: error });
  }
  throw error;
}

export function createAppInstalls(deps: AppInstallsDeps): AppInstalls {
  const { store, webApi, tokens, clock } = deps;
  const hash = deps.hash ?? sha256Hex;

  async function found(id: string): Promise<InstallationRecord> {
    const installation = await store.findInstallation(id);
    if (!installation) throw new InstallError('not_found', 'There is no installation with that id.');
    return installation;
  }

  return {
    async startInstall(binding, options = {}) {
      const state = randomSecret(24);
      const now = clock.now();
      await store.rememberKey({ kind: OAUTH_STATE_KIND, key: await hash(state), payload: binding, expiresAt: now + OAUTH_STATE_TTL_MS }, now, OAUTH_STATES_MAX);
      const url = new URL('/oauth/v2/authorize', deps.apiUrl);
      url.searchParams.set('client_id', deps.clientId);
      url.searchParams.set('scope', APP_BOT_SCOPES.join(','));
      url.searchParams.set('redirect_uri', deps.redirectUri);
      url.searchParams.set('state', state);
      // Re-installing a known workspace: the vendor's page opens on it.
      if (options.teamId) url.searchParams.set('team', options.teamId);
      return { authorizeUrl: url.toString(), state };
    },

    async finishInstall({ state, code, error, binding }) {
      // The state is consumed first, whatever else came (a callback is good for one try), but only
      // by the browser that started it: a hit from anywhere else must not spend the admin's.
      const owner = state && binding ? await store.consumeKey(OAUTH_STATE_KIND, await hash(state), clock.now(), binding) : null;
      if (owner === null) {
        throw new InstallError(
          'bad_state',
          'This install link is not valid: it was used already, is more than 10 minutes old, or was started in another browser. Start again from Add to workspace.',
        );
      }
      if (error !== null) {
        if (error === 'access_denied') throw new InstallError('denied', 'The install was cancelled on the vendor’s page: nothing was installed.', error);
        throw new InstallError('vendor', `The vendor ended the install with ${error.slice(0, 100)}: nothing was installed.`, error.slice(0, 100));
      }
      if (!code) throw new InstallError('vendor', 'The vendor sent no code back: nothing was installed. Start again from Add to workspace.');
      try {
        const grant = await webApi.accessFromCode(code, deps.redirectUri);
        return await tokens.installGrant(grant);
      } catch (cause) {
        throw vendorFailure('The install', cause);
      }
    },

    async installFromToken(token) {
      try {
        return await tokens.installFromToken(token);
      } catch (cause) {
        throw vendorFailure('The token exchange', cause);
      }
    },

    async uninstall(id) {
      const installation = await found(id);
      if (installation.state !== 'uninstalled') {
        try {
          await tokens.withToken(id, (token) => webApi.uninstall(token));
        } catch (cause) {
          // Already gone on the vendor's side (or we cannot get a token any more): removing ours is
          // all that is left to do. Anything else (an outage) keeps the tokens, so it can be retried.
          const gone = (cause instanceof WebApiError && GRANT_GONE.has(cause.code)) || cause instanceof InstallationUnavailableError;
          if (!gone) throw vendorFailure('The uninstall', cause);
        }
        await store.markUninstalled(id, 'uninstalled by the admin', clock.now());
      }
      return found(id);
    },

    async conversations(id, from, limit) {
      const installation = await found(id);
      if (installation.state !== 'active') {
        throw new InstallError('unavailable', `The installation is ${installationStanding(installation)}: install it again to list its conversations.`);
      }
      const wanted = Math.max(1, Math.min(CONVERSATIONS_PAGE_MAX, limit));
      const collected: VendorConversation[] = [];
      let position: ConversationsPosition = from ?? { vendorCursor: null, skip: 0 };
      // A conversation the vendor sent malformed is left out (`skip` counts the ones kept) and logged,
      // once: a vendor page this request starts inside (skip > 0) was logged by the request that read it first.
      const skips = createSkipTally();
      try {
        for (let read = 0; read < VENDOR_PAGES_PER_REQUEST; read++) {
          const page = await tokens.withToken(id, (token) => webApi.listConversations(token, { cursor: position.vendorCursor, limit: wanted }));
          if (position.skip === 0) skips.add(page.skipped);
          const fresh = page.conversations.slice(position.skip);
          const room = wanted - collected.length;
          collected.push(...fresh.slice(0, room));
          // Part of this vendor page is left: the next page of ours starts inside it.
          if (fresh.length > room) return { conversations: collected, next: { vendorCursor: position.vendorCursor, skip: position.skip + room } };
          // Only the vendor's empty cursor ends the list, never a short page (spec, Pagination rules).
          if (page.nextCursor === null) return { conversations: collected, next: null };
          position = { vendorCursor: page.nextCursor, skip: 0 };
          if (collected.length === wanted) break;
        }
      } catch (cause) {
        if (cause instanceof InstallationUnavailableError) {
          throw new InstallError('unavailable', `The installation is ${cause.standing}: install it again.`, cause.reason, { cause });
        }
        if (cause instanceof WebApiError && (await tokens.reportVendorError(id, cause.code))) {
          throw new InstallError('unavailable', `The vendor says the installation's grant is gone (${cause.code}): install it again.`, cause.code, { cause });
        }
        throw vendorFailure('Listing conversations', cause);
      } finally {
        logSkips(deps.logger, 'conversations.list', skips);
      }
      return { conversations: collected, next: position };
    },
  };
}
