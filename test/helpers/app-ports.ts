/**
 * A runtime's AppPorts over a fresh, empty archive, for route tests that build the app themselves
 * with buildAppDeps. On Node: a SQLite file in a temporary folder (node-app-ports.ts); the workers
 * project swaps this file for test/workers/harness/app-ports.ts, over D1.
 */
import type { Logger } from '../../src/core/ports.ts';
import type { AppPorts } from './app-deps.ts';
import { nodeAppPorts } from './node-app-ports.ts';
import { openTempArchive } from './temp-archive.ts';

export type OpenedAppPorts = { ports: AppPorts; close(): Promise<void> };

export async function openAppPorts(logger: Logger): Promise<OpenedAppPorts> {
  const archive = openTempArchive();
  const ports = await nodeAppPorts(archive.connection, logger, { withAssets: true });
  return {
    ports,
    async close() {
      await ports.webhooks.close();
      archive.remove();
    },
  };
}
