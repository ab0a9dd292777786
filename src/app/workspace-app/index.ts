/**
 * The workspace app's use cases wired together, the same way by both runtimes and the
 * tests: its tokens (tokens.ts), its installs (installs.ts), and the admin told when an
 * installation breaks. Absent while the app's client id and secret are unset.
 */
import { APP_PATHS } from '../../core/workspace-app/manifest.ts';
import type { Clock, InstallationStore, Logger, Mailer, OneTimeKeyStore, VendorInstallApi, VendorWebApi } from '../../core/ports.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { createInstallationNotice } from '../admin-notice.ts';
import { createAppInstalls, type AppInstalls } from './installs.ts';
import { createAppTokens, type AppTokens } from './tokens.ts';

export type WorkspaceApp = {
  tokens: AppTokens;
  installs: AppInstalls;
  /**
   * Retries the token refreshes a stopped process or invocation left claimed, while the vendor's
   * grace may last, and says so in the log; a failure to look is logged, never thrown. Run when
   * `serve` starts, and on every cron tick of a Worker (which has no start).
   */
  recoverUnfinishedRefreshes(): Promise<void>;
};

export type WorkspaceAppDeps = {
  store: InstallationStore & OneTimeKeyStore;
  webApi: VendorWebApi & VendorInstallApi;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  mailer: Mailer | null;
  adminEmail?: string;
  /** PUBLIC_URL (or the runtime's fallback): the manifest's redirect URL is under it. */
  publicUrl: string;
  /** APP_API_URL. */
  apiUrl: string;
  clientId: string;
  /** The runtime's timer, for waiting while another process refreshes a token. */
  sleep: (ms: number) => Promise<void>;
};

export function createWorkspaceApp(deps: WorkspaceAppDeps): WorkspaceApp {
  const onBroken = createInstallationNotice({ mailer: deps.mailer, adminEmail: deps.adminEmail, publicUrl: deps.publicUrl, logger: deps.logger });
  const tokens = createAppTokens({ store: deps.store, webApi: deps.webApi, box: deps.box, clock: deps.clock, sleep: deps.sleep, onBroken });
  const installs = createAppInstalls({
    store: deps.store,
    webApi: deps.webApi,
    tokens,
    clock: deps.clock,
    logger: deps.logger,
    apiUrl: deps.apiUrl,
    clientId: deps.clientId,
    redirectUri: `${deps.publicUrl.replace(/\/+$/, '')}${APP_PATHS.oauthRedirect}`,
  });
  async function recoverUnfinishedRefreshes(): Promise<void> {
    try {
      const { retried, failed } = await tokens.recoverClaims();
      if (retried > 0) deps.logger.info('retried the token refreshes a stopped process or invocation left unfinished', { retried, failed });
    } catch (error) {
      deps.logger.warn('could not look for unfinished token refreshes', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { tokens, installs, recoverUnfinishedRefreshes };
}
