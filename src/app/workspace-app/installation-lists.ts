/**
 * The workspace app's installations as every face lists them: all of them (the admin API and the
 * admin page), or only the active ones, which hold a token to post with (the subscription form's
 * choice of conversations, and the refreshes a stopped process left claimed). The bound on how
 * many are read lives here once.
 */
import type { InstallationRecord, InstallationStore } from '../../core/ports.ts';

/** Installations are one per workspace: a list of this many is every one a deployment will have. */
export const INSTALLATIONS_LIST_MAX = 200;

export type InstallationListDeps = { store: Pick<InstallationStore, 'listInstallations'> };

/** Every installation, whatever its state, the newest first, at most INSTALLATIONS_LIST_MAX. */
export function listInstallations({ store }: InstallationListDeps): Promise<InstallationRecord[]> {
  return store.listInstallations(INSTALLATIONS_LIST_MAX);
}

/** The installations the app can post with (state `active`), the newest first, of those listInstallations reads. */
export async function activeInstallations(deps: InstallationListDeps): Promise<InstallationRecord[]> {
  return (await listInstallations(deps)).filter((installation) => installation.state === 'active');
}
